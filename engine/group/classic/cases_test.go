package classic

import "testing"

// kafkaCase is one scenario named after the Kafka test it mirrors
// (GroupMetadataManagerTest or ClassicGroupTest), with Kafka's expected
// outcomes asserted inside run.
type kafkaCase struct {
	name string
	cfg  func(*Config)
	run  func(h *harness)
}

func runCases(t *testing.T, cases []kafkaCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			c.run(newHarness(t, cfg))
		})
	}
}
