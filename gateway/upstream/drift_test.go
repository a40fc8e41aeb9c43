package upstream

import "testing"

func TestSignature(t *testing.T) {
	for body, want := range map[string]string{
		`{"success":true,"records":[{"lpnId":"A","sex":"2","bwt":0.1}],"recordCount":25}`: "{recordCount:number,records:[{bwt:number,lpnId:string,sex:string}],success:bool}",
		`[]`:                        "[]",
		`"x"`:                       "string",
		`{"a":{"b":{"c":{"d":1}}}}`: "{a:{b:{c:object}}}",
		`<html>`:                    "(not JSON)",
	} {
		if got := Signature([]byte(body)); got != want {
			t.Errorf("Signature(%s) = %q, want %q", body, got, want)
		}
	}
}
