// Package analysistest serves the analyses' tests: a fake Source over a
// made-up herd, with its faults and limits to switch on, the herds and
// populations the tests share, readers of the answers as a client decodes
// them, and the check of an analysis against its published contract. It
// is a package of its own so that each analysis's tests and the tests of
// them together read the same fake.
package analysistest
