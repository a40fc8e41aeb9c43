// Package nsiptest is a stand-in for the NSIP Search API: an HTTP server on
// loopback that serves the eight endpoints under /api/ from generated,
// deterministic data, and misbehaves on request.
//
// Use it in tests with [NewServer], which stops it when the test ends, or
// anywhere with [Start] and [Server.Close]. A [Server] is a [Handler]:
// [Handler.SetFault] makes an endpoint misbehave, [Handler.Requests]
// counts what it was asked, and [Handler.Data] is the [Dataset] it serves:
//
//	srv := nsiptest.NewServer(t, nsiptest.Options{Seed: 1})
//	c, _ := nsip.NewClient(nsip.WithBaseURL(srv.URL()))
//	id := srv.Data().MostProgeny()
//	srv.SetFault(nsiptest.EndpointDetails, nsiptest.Fault{Kind: nsiptest.FaultStatus, Status: 503, Times: 2})
//	// … call c.AnimalDetails(ctx, id): two 503s, then the answer …
//	if got := srv.Requests(nsiptest.EndpointDetails); got != 3 { … }
//
// # Data
//
// Options.Seed and Options.Animals (default 4000) fix the world: the same
// pair always yields the same bytes. Breed groups 61 Range, 62 Maternal
// Wool, 64 Hair and 69 Terminal hold eighteen breeds (640 Katahdin is about
// 40% of the animals). Animals are born 2007..2025; those born up to 2008
// are founders without parents, later ones mostly have a sire and dam of
// their breed (a few, more in small breeds, are registered without), bred
// as a recorded breed is: flocks of 20 to 500 animals, home rams used for
// three seasons, a few AI sires used across flocks, matings of close
// relatives mostly avoided. The mean inbreeding is a few percent (see
// specs/upstream.md for the figures).
// LPN IDs look like 6402382024NCS310: breed id, flock number, birth year,
// flock letters, tattoo. Every animal carries the thirteen traits with
// accuracies (many below 50%) and its breed group's own traits (Hair:
// MWWT without accuracy, NLW, WFEC, PFEC; wool groups: YGFW, YFD, YSL;
// Terminal: YEMD, YFAT, PEMD, PFAT; see BreedTraitCodes), one or two
// indexes, a status, and the contact block of its flock; some farm names are non-ASCII or contain "&",
// and some flocks lack a phone, email, street address or contact name.
// Dataset accessors return exactly what is served. The example ram of the
// README, ExampleRam (6402382024NCS310), is there with his sire, dam and 25
// offspring. NoTraitDataBreed (641) has no trait ranges: HTTP 400.
//
// Options.BigBreed (nsip-stub --big-breed) adds one more Hair breed,
// BigBreedID (649), of that many animals, drawn from its own stream so that
// every other animal stays as it was: 50,000 animals take about 2 s and
// 110 MB resident (17 MB without them), with pedigrees, progeny, statuses,
// trait ranges and sorted pages as for the other breeds. Search orders are
// kept per query, so paging through it sorts it once.
//
// # Requests
//
// All parameters are checked as the API does; a problem is a 400 with a
// JSON message naming the parameter: missing or non-integer page/pageSize,
// page < 0, pageSize outside 1..100, breedId < 1 (trait ranges) or < 0
// (search; 0 there means any breed), reverse not a bool, an unknown
// sortedBreedTrait or traitRanges code, a body that is empty or not a JSON
// object, a criteria field of the wrong type, a bad date or gender. An
// unknown animal (or trait-range breed) is a 404. A wrong method is a 405.
// getAnimalDetails accepts an LPN ID in any case or a registration number.
//
// Search results are sorted by LPN ID, or with sortedBreedTrait by that
// trait's value highest first (ties by LPN ID); reverse inverts the order.
// bornAfter/bornBefore are inclusive; provenOnly keeps animals with at
// least one progeny; flockId is a flock code such as "640238". Progeny
// pages list the animals whose sire or dam is the subject, newest first.
//
// # Formats
//
// FormatLive, the default, answers in the shapes captured from the live
// API and sends no member a live capture lacks: as the current format
// below, except that search rows (and the searchResultViewModel of
// details) are
//
//	{"lpnId","lpnSre","lpnDam","status","regNumber", bwt/accbwt …, usHairIndex|usIndex, srcIndex}
//
// without birth date, sex, breed, flock, genotyped or progeny count, and
// progeny pages are
//
//	{"success":true,"records":[{"lpnId":…,"dob":"2025-02-16T00:00:00","sex":"2"}],"recordCount":25,"numberOfPages":3}
//
// with sex "1" (male) or "2" (female) and no traits. Options.RichRows
// (nsip-stub --rich-rows) or SetRichRows adds the members the other
// formats carry, for tests that compare answers built on both. FormatCurrent and FormatLegacy are
// shapes other clients assumed without a capture, kept so that the client
// is tested against both. The current format answers:
//
//	getDateLastUpdated      {"date":"09/23/2025"}                  (both formats)
//	getStatusesByBreedGroup ["CURRENT","SOLD",…]                   (both formats)
//	getTraitRangesByBreed   {"BWT":{"min":-1.2,"max":0.86},…}      (both formats)
//	getAvailableBreedGroups {"success":true,"data":[{"breedGroupId":61,"breedGroupName":"Range","breeds":[{"breedId":486,"breedName":"…"}]}]}
//	getPageOfSearchResults  {"recordCount":4000,"records":[row,…]}
//	getAnimalDetails        {"success":true,"data":{"progenyCount":…,"dateOfBirth":"2/13/2024","gender":"Male","genotyped":…,"flockCount":"1","breed":{…},"searchResultViewModel":row,"contactInfo":{"flockCode":…,"farmName":…,"customerName":…,"phone":…,"email":…,"address":…,"city":…,"state":…,"zipCode":…}}}
//	getLineage              {"success":true,"data":{"lpnId":…,"content":"<div>Farm</div>…","children":[sire,dam]}}
//	getPageOfProgeny        {"recordCount":283,"records":[{"lpnId":…,"sex":"F","dob":"05/12/2022","bwt":…,"accbwt":0.63,…}]}
//
// where row is {"lpnId","lpnSre","lpnDam","status","regNumber",
// "dateOfBirth","gender","breedId","flockCode","genotyped","progenyCount",
// then bwt/accbwt … fec/accfec, then usIndex or usHairIndex, and srcIndex
// (not for Terminal breeds)}. Accuracies are fractions (0.63). A founder's
// lpnSre/lpnDam and a missing contact field are null.
//
// The legacy format answers with the same keys capitalised and no
// envelope: breed groups as a bare [{"Id":61,"Name":"Range"},…] without
// breeds; pages as {"TotalCount":…,"Results":[…]} with rows such as
// {"LpnId","LpnSre",…,"Bwt":-0.2,"AccBwt":63,…,"UsHairIndex":…}; lineage as
// {"LpnId","Content","Children"}; details as {"LpnId","Breed","BreedGroup",
// "DateOfBirth","Gender","Status","Sire","Dam","RegistrationNumber",
// "TotalProgeny","FlockCount","Genotyped","Traits":{"BWT":{"Value":…,
// "Accuracy":80}},"UsIndex"|"UsHairIndex","SrcIndex","ContactInfo":
// {"FarmName","ContactName","Phone","Email","Address","City","State",
// "ZipCode"}}. Accuracies are whole percents; empty values are "".
// Errors are {"success":false,"message":…} or, in the legacy format,
// {"Message":…}.
//
// The lineage fragment is <div>Farm</div><div>US Hair Index: 102.03</div>
// <div>SRC$ Index: 116.56</div><div>DOB: 2/13/2024</div><div>Sex: Male</div>
// <div>Status: CURRENT</div> (HTML-escaped farm name; non-hair breeds say
// "US Index"); a few animals lack the index, DOB or status lines
// (Animal.Content is the exact fragment). The tree nests LineageDepth
// generations below the subject; founders and nodes at the cap have
// "children":[]. JSON is written without HTML escaping, as the API does.
//
// The search and breed-group answers use the server-wide format
// (SetFormat); details, lineage and progeny use the subject animal's
// (SetAnimalFormat), falling back to the server's.
//
// # Irregularities
//
// SetIrregular switches on what NSIP does not promise, one field each:
// UnstableTies (tied rows ordered anew on every search request), Round
// (traits served with fewer decimals, so that many animals tie),
// ShortPages (pages before the last short of rows, the count unchanged),
// NarrowRanges (published trait ranges narrower than the data),
// OneChildLineages (a lineage node lists its dam as its only child) and
// IgnoreCriteria (search criteria not applied). SetTraitText sends an
// absurd or unrepresentable value for one animal's trait. Dataset
// accessors keep returning the true data, which is what tests compare an
// answer read through the irregularities with.
//
// # Faults and counters
//
// SetSearchRowsGenotyped(false) sends search rows without a genotyped
// status, which live answers are known to carry in details only.
// SetFault makes one endpoint misbehave (see FaultKind), for every request
// or for the next Fault.Times requests only; SetLatency and Options.Latency
// delay answers. Requests and TotalRequests count what arrived, faulted
// requests included. Latency and hangs end when the client gives up or the
// server closes. The package never writes to stdout or stderr.
package nsiptest
