package manifest

// Overlay applies changes on top of base, the way `quokka simulate --from-cluster
// -f CHANGES` reads a cluster's snapshot and then the files given: a change at
// time 0 with the same kind, namespace and name as a base document takes that
// document's place (the live object is never applied, and the order of the
// snapshot, which is queue order for workloads, is kept); every other change
// comes after the base documents, in the order given. A change placed later on
// the clock (simulation.quokka.dev/at) replaces the live object at that time, as
// any later document with the same key does.
func Overlay(base, changes []Document) ([]Document, error) {
	out := make([]Document, len(base))
	copy(out, base)
	index := make(map[Key]int, len(base))
	for i, d := range base {
		index[d.Key] = i
	}
	for _, c := range changes {
		if i, ok := index[c.Key]; ok && c.At == 0 {
			out[i] = c
			continue
		}
		out = append(out, c)
	}
	if err := checkAcrossDocuments(out); err != nil {
		return nil, err
	}
	return out, nil
}
