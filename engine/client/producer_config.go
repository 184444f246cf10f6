package client

// ConfigError is Kafka's ConfigException: a producer configuration the
// Java client refuses to build.
type ConfigError struct{ Message string }

func (e *ConfigError) Error() string { return e.Message }

// MaxInFlightForIdempotence is ProducerConfig's
// MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE: the broker keeps the
// metadata of a producer's last 5 batches per partition, so more requests in
// flight could not all be recognised as duplicates.
const MaxInFlightForIdempotence = 5

// ValidateIdempotence is ProducerConfig.postProcessAndValidateIdempotenceConfigs
// (Kafka 4.x). explicit tells which keys the user set ("enable.idempotence",
// "transactional.id"): idempotence the user asked for and the settings
// contradict is an error; idempotence that is only the default is silently
// turned off (Kafka logs why). A transactional.id needs idempotence.
func (c *ProducerConfig) ValidateIdempotence(explicit func(key string) bool) error {
	userIdempotence := explicit("enable.idempotence")
	if c.EnableIdempotence {
		disable := false
		if c.Retries == 0 {
			if userIdempotence {
				return &ConfigError{"Must set retries to non-zero when using the idempotent producer."}
			}
			disable = true
		}
		if c.Acks != -1 {
			if userIdempotence {
				return &ConfigError{"Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence."}
			}
			disable = true
		}
		if c.MaxInFlight > MaxInFlightForIdempotence {
			if userIdempotence {
				return &ConfigError{"Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer."}
			}
			disable = true
		}
		if disable {
			c.EnableIdempotence = false
		}
	}
	// Checked after the above because enable.idempotence may just have
	// been turned off.
	if !c.EnableIdempotence && (explicit("transactional.id") || c.TransactionalID != "") {
		return &ConfigError{"Cannot set a transactional.id without also enabling idempotence."}
	}
	return nil
}
