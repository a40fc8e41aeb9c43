package nsip

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseLineageContent(t *testing.T) {
	cases := []struct {
		name, html string
		want       lineageFacts
	}{
		{
			name: "full fragment",
			html: `<div>Pine Ridge Farm</div><div>US Hair Index: 102.03</div><div>SRC$ Index: 116.56</div><div>DOB: 2/13/2024</div><div>Sex: Male</div><div>Status: CURRENT</div>`,
			want: lineageFacts{farm: "Pine Ridge Farm", dob: "2/13/2024", sex: "Male", status: "CURRENT",
				indexes: []Index{{"US Hair Index", 102.03}, {"SRC$ Index", 116.56}}},
		},
		{
			name: "entities, inline tags, odd spacing and case",
			html: "<div> Smith &amp; Sons\n <b>Farm</b></div><div><b>us index</b>:  1,102.5 </div><br><span>dob:</span>1/2/2020<div>SEX : Female</div>",
			want: lineageFacts{farm: "Smith & Sons Farm", dob: "1/2/2020", sex: "Female", indexes: []Index{{"us index", 1102.5}}},
		},
		{
			name: "no farm: the first line is labelled",
			html: `<div>DOB: 2/13/2024</div><div>Maternal Index: 99</div><div>Date of Birth: 3/3/2023</div><div>Gender: Ewe</div>`,
			want: lineageFacts{dob: "3/3/2023", sex: "Ewe", indexes: []Index{{"Maternal Index", 99}}},
		},
		{
			name: "empty first div and unusable index values",
			html: `<div></div><div>US Index: n/a</div><div>Index: 5</div><div>Status: SOLD</div><div>Other Farm</div>`,
			want: lineageFacts{status: "SOLD"},
		},
		{
			name: "farm name with a colon, script hidden",
			html: `<div>Farm: North Flock<script>alert("Sex: x")</script></div><style>.a{}</style><div>Sex: Male</div>`,
			want: lineageFacts{farm: "Farm: North Flock", sex: "Male"},
		},
		{name: "empty", html: "", want: lineageFacts{}},
		{name: "plain text", html: "Lonely Acres", want: lineageFacts{farm: "Lonely Acres"}},
		{name: "broken markup", html: "<p>Sex: M</p><div class='x", want: lineageFacts{sex: "M"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseLineageContent(tc.html); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// nestedLineage builds a pedigree JSON of the given number of generations,
// each node having a sire and a dam (null beyond the last generation). With
// sireLine only, each node's dam is unknown, keeping deep trees small.
func nestedLineage(generations int, envelope, sireLine bool) string {
	var node func(gen int, id string) string
	node = func(gen int, id string) string {
		if gen > generations {
			return "null"
		}
		content := fmt.Sprintf(`<div>Farm %s</div><div>US Index: %d.5</div><div>DOB: 1/1/%d</div><div>Sex: Male</div><div>Status: CURRENT</div>`, id, 100+gen, 2024-gen)
		dam := "null"
		if !sireLine {
			dam = node(gen+1, id+"D")
		}
		return fmt.Sprintf(`{"lpnId":"%s","content":%q,"children":[%s,%s]}`, id, content, node(gen+1, id+"S"), dam)
	}
	body := node(1, "ROOT1")
	if envelope {
		return `{"success":true,"data":` + body + `}`
	}
	return body
}

func TestDecodeLineageShapes(t *testing.T) {
	t.Run("three generations", func(t *testing.T) {
		l, e := decodeLineage([]byte(nestedLineage(3, true, false)))
		if e != nil {
			t.Fatal(e)
		}
		s := l.Subject
		if s.LPNID != "ROOT1" || s.Farm != "Farm ROOT1" || s.DOB != "1/1/2023" || s.Status != "CURRENT" ||
			!reflect.DeepEqual(s.Indexes, []Index{{"US Index", 101.5}}) {
			t.Errorf("subject %+v", s)
		}
		if s.Sire.LPNID != "ROOT1S" || s.Dam.LPNID != "ROOT1D" || s.Dam.Sire.LPNID != "ROOT1DS" || s.Dam.Sire.Sire != nil ||
			s.Sire.Dam.Farm != "Farm ROOT1SD" {
			t.Errorf("tree wrong: %+v", s)
		}
	})
	t.Run("extra children and unknown parents", func(t *testing.T) {
		body := `{"LpnId":"ROOT1","Content":"<div>F</div>","Children":[null,{"LpnId":"D1"},{"LpnId":"X1"},null,{"LpnId":"X2"}]}`
		l, e := decodeLineage([]byte(body))
		if e != nil {
			t.Fatal(e)
		}
		s := l.Subject
		if s.Sire != nil || s.Dam.LPNID != "D1" || len(s.Others) != 2 || s.Others[0].LPNID != "X1" || s.Others[1].LPNID != "X2" || s.Farm != "F" {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("depth cap", func(t *testing.T) {
		if _, e := decodeLineage([]byte(nestedLineage(MaxLineageDepth, false, true))); e != nil {
			t.Errorf("%d generations rejected: %v", MaxLineageDepth, e)
		}
		_, e := decodeLineage([]byte(nestedLineage(MaxLineageDepth+1, false, true)))
		if e == nil || e.Kind != KindUnexpectedResponse || !strings.Contains(e.Reason, "deeper than 16 generations") {
			t.Errorf("%d generations: %v", MaxLineageDepth+1, e)
		}
	})
	t.Run("hostile nesting", func(t *testing.T) {
		body := strings.Repeat(`{"lpnId":"A1","children":[`, 5000) + strings.Repeat(`]}`, 5000)
		if _, e := decodeLineage([]byte(body)); e == nil || !strings.Contains(e.Reason, "deeper than") {
			t.Errorf("got %v", e)
		}
	})
}
