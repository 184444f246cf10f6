package kraft

import "fmt"

// replicaCapAllows refuses a topic that would take the cluster past
// ControllerConfig.MaxReplicas partition replicas. Kafka has no such cap;
// its closest is a CreateTopicPolicy refusing a request
// (PolicyViolationException), and that is the answer given. The count is
// the image's, so it is the same on every replay: a script refused here
// is refused at the same line natively and in the browser.
func (c *Controller) replicaCapAllows(name string, partitions, rf int) error {
	if c.cfg.MaxReplicas <= 0 {
		return nil
	}
	held := c.image.ReplicaCount()
	need := partitions * rf
	if held+need <= c.cfg.MaxReplicas {
		return nil
	}
	return fmt.Errorf("%w: topic %q needs %d partition replicas (%d partitions x rf %d) and this cluster holds %d of the %d loglab allows a cluster "+
		"(every topic's replicas count, __consumer_offsets and __transaction_state too): create it with fewer partitions or a smaller rf, "+
		"or start a new cluster; each replica keeps files open on the server",
		ErrPolicyViolation, name, need, partitions, rf, held, c.cfg.MaxReplicas)
}

// ReplicaCount is how many partition replicas the image's topics hold.
func (im *Image) ReplicaCount() int {
	n := 0
	for _, t := range im.Topics {
		for _, p := range t.Partitions {
			if p != nil {
				n += len(p.Replicas)
			}
		}
	}
	return n
}
