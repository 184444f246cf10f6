package loadtest

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
)

// DiskFigures is what the disk-full phase did.
type DiskFigures struct {
	Broker       int // the broker whose disk filled: orders/0's leader
	LeaderDuring int // orders/0's leader while it was full
}

var partition0Leader = regexp.MustCompile(`Partition: 0\tLeader: (-?\d+)`)

// ordersLeader reads orders/0's leader from `topic describe orders`.
func ordersLeader(ctx context.Context, c *apiClient) (int, error) {
	res, err := c.command(ctx, instructorCluster, "topic describe orders")
	if err != nil {
		return 0, err
	}
	m := partition0Leader.FindStringSubmatch(res.Output)
	if !res.OK || m == nil {
		return 0, fmt.Errorf("topic describe orders: %s", firstLine(res.Output))
	}
	return strconv.Atoi(m[1])
}

// diskFull fills the disk of the broker leading orders/0 (its writes
// fail with ENOSPC), runs phase (the victim typing) meanwhile, then frees
// the disk and restarts the broker, whose offline replica comes back only
// then, as in Kafka. The victim's produces must all be acknowledged: the
// leadership moves to a replica whose disk has room.
func (r *HostileReport) diskFull(ctx context.Context, c *apiClient, phase func()) error {
	leader, err := ordersLeader(ctx, c)
	if err != nil {
		return err
	}
	r.Disk.Broker = leader
	for _, line := range []string{fmt.Sprintf("broker disk-full %d", leader)} {
		if res, err := c.command(ctx, instructorCluster, line); err != nil || !res.OK {
			return fmt.Errorf("%s: %v %s", line, err, firstLine(res.Output))
		}
	}
	phase()
	if r.Disk.LeaderDuring, err = ordersLeader(ctx, c); err != nil {
		return err
	}
	if r.Disk.LeaderDuring == leader {
		return fmt.Errorf("broker %d still leads orders/0 with its disk full", leader)
	}
	for _, line := range []string{
		fmt.Sprintf("broker disk-free %d", leader),
		fmt.Sprintf("broker crash %d", leader),
		fmt.Sprintf("broker restart %d", leader),
	} {
		if res, err := c.command(ctx, instructorCluster, line); err != nil || !res.OK {
			return fmt.Errorf("%s: %v %s", line, err, firstLine(res.Output))
		}
	}
	return nil
}
