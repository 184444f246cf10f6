package quorum

import "fmt"

// Remove closes the quorum and deletes every controller's files (native
// mode), so that a new quorum on the same Dir starts empty: a new cluster
// replaces the old one and its data.
func (q *Quorum) Remove() error {
	if err := q.Close(); err != nil {
		return err
	}
	if q.fs == nil {
		return nil
	}
	for _, n := range q.nodes {
		if err := q.fs.RemoveAll(fmt.Sprintf("controller-%d", n.id)); err != nil {
			return err
		}
	}
	return nil
}
