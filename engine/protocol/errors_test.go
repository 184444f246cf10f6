package protocol

import "testing"

// The names learners read must be Kafka's (org.apache.kafka.common.protocol.Errors):
// code 18 is RECORD_LIST_TOO_LARGE, whose exception is
// RecordBatchTooLargeException. The client-side timeouts have no error
// code in Kafka: the Java client raises a TimeoutException, so they must
// never be shown as an invented code.
func TestErrorNamesAreKafkas(t *testing.T) {
	for _, c := range []struct {
		code ErrorCode
		name string
	}{
		{18, "RECORD_LIST_TOO_LARGE"},
		{10, "MESSAGE_TOO_LARGE"},
		{19, "NOT_ENOUGH_REPLICAS"},
		{7, "REQUEST_TIMED_OUT"},
		{14, "COORDINATOR_LOAD_IN_PROGRESS"},
		{16, "NOT_COORDINATOR"},
		{25, "UNKNOWN_MEMBER_ID"},
		{27, "REBALANCE_IN_PROGRESS"},
		{82, "FENCED_INSTANCE_ID"},
		{110, "FENCED_MEMBER_EPOCH"},
		{113, "STALE_MEMBER_EPOCH"},
		{DeliveryTimeout, "TimeoutException"},
		{MaxBlockTimeout, "TimeoutException"},
	} {
		if got := c.code.Name(); got != c.name {
			t.Errorf("code %d is named %s, Kafka calls it %s", c.code, got, c.name)
		}
	}
}
