package log

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Config holds the topic-level settings the log obeys, under Kafka's names
// and with Kafka's defaults.
type Config struct {
	SegmentBytes           int64   // segment.bytes: roll when the active segment would grow past this
	SegmentMs              int64   // segment.ms: roll when the active segment's records span this long
	SegmentIndexBytes      int64   // segment.index.bytes: roll when the offset or time index is this big
	IndexIntervalBytes     int64   // index.interval.bytes: bytes of batches between sparse index entries
	RetentionMs            int64   // retention.ms: delete segments whose newest record is older (-1: forever)
	RetentionBytes         int64   // retention.bytes: delete oldest segments while the log is bigger (-1: no limit)
	CleanupPolicy          string  // cleanup.policy: delete, compact, or compact,delete
	DeleteRetentionMs      int64   // delete.retention.ms: how long the cleaner keeps tombstones
	MinCleanableDirtyRatio float64 // min.cleanable.dirty.ratio: clean once more than this share of the log is dirty
	MinCompactionLagMs     int64   // min.compaction.lag.ms: records younger than this are not compacted
	MaxMessageBytes        int64   // max.message.bytes: the largest batch the log accepts
}

// DefaultConfig is Kafka's topic defaults.
func DefaultConfig() Config {
	return Config{
		SegmentBytes:           1 << 30,
		SegmentMs:              7 * 24 * 3600 * 1000,
		SegmentIndexBytes:      10 << 20,
		IndexIntervalBytes:     4096,
		RetentionMs:            7 * 24 * 3600 * 1000,
		RetentionBytes:         -1,
		CleanupPolicy:          "delete",
		DeleteRetentionMs:      24 * 3600 * 1000,
		MinCleanableDirtyRatio: 0.5,
		MinCompactionLagMs:     0,
		MaxMessageBytes:        1048588,
	}
}

// Compact reports whether the cleaner compacts this log.
func (c Config) Compact() bool { return strings.Contains(c.CleanupPolicy, "compact") }

// Delete reports whether retention deletes old segments of this log.
func (c Config) Delete() bool { return strings.Contains(c.CleanupPolicy, "delete") }

// setting is one topic config: its name, how to set it, how to show it.
type setting struct {
	name string
	set  func(c *Config, v string) error
	get  func(c Config) string
}

// minSegmentBytes: Kafka 4.0 requires segment.bytes of at least 1 MiB
// (KIP-1030; 14 bytes before). loglab accepts anything that holds a batch
// header, so a lesson can roll segments after a handful of records.
const minSegmentBytes = 61

var settings = []setting{
	intSetting("segment.bytes", minSegmentBytes, math.MaxInt32, func(c *Config) *int64 { return &c.SegmentBytes }),
	intSetting("segment.ms", 1, math.MaxInt64, func(c *Config) *int64 { return &c.SegmentMs }),
	intSetting("segment.index.bytes", 8, math.MaxInt32, func(c *Config) *int64 { return &c.SegmentIndexBytes }),
	intSetting("index.interval.bytes", 0, math.MaxInt32, func(c *Config) *int64 { return &c.IndexIntervalBytes }),
	intSetting("retention.ms", -1, math.MaxInt64, func(c *Config) *int64 { return &c.RetentionMs }),
	intSetting("retention.bytes", -1, math.MaxInt64, func(c *Config) *int64 { return &c.RetentionBytes }),
	intSetting("delete.retention.ms", 0, math.MaxInt64, func(c *Config) *int64 { return &c.DeleteRetentionMs }),
	intSetting("min.compaction.lag.ms", 0, math.MaxInt64, func(c *Config) *int64 { return &c.MinCompactionLagMs }),
	intSetting("max.message.bytes", 0, math.MaxInt32, func(c *Config) *int64 { return &c.MaxMessageBytes }),
	{
		name: "cleanup.policy",
		set: func(c *Config, v string) error {
			switch v {
			case "delete", "compact":
			case "compact,delete", "delete,compact":
				v = "compact,delete"
			default:
				return fmt.Errorf("cleanup.policy=%s: must be delete, compact or compact,delete", v)
			}
			c.CleanupPolicy = v
			return nil
		},
		get: func(c Config) string { return c.CleanupPolicy },
	},
	{
		name: "min.cleanable.dirty.ratio",
		set: func(c *Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f > 1 {
				return fmt.Errorf("min.cleanable.dirty.ratio=%s: must be a number between 0 and 1", v)
			}
			c.MinCleanableDirtyRatio = f
			return nil
		},
		get: func(c Config) string { return strconv.FormatFloat(c.MinCleanableDirtyRatio, 'g', -1, 64) },
	},
}

func intSetting(name string, lo, hi int64, field func(*Config) *int64) setting {
	return setting{
		name: name,
		set: func(c *Config, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%s=%s: not a whole number", name, v)
			}
			if n < lo || n > hi {
				return fmt.Errorf("%s=%d: must be between %d and %d", name, n, lo, hi)
			}
			*field(c) = n
			return nil
		},
		get: func(c Config) string { return strconv.FormatInt(*field(&c), 10) },
	}
}

// IsSetting reports whether name is a topic config the log understands.
func IsSetting(name string) bool {
	for _, s := range settings {
		if s.name == name {
			return true
		}
	}
	return false
}

// Set changes one topic config by its Kafka name, validating the value.
func (c *Config) Set(name, value string) error {
	for _, s := range settings {
		if s.name == name {
			return s.set(c, value)
		}
	}
	return fmt.Errorf("unknown topic config %s", name)
}

// Describe lists every setting as name=value, in a fixed order.
func (c Config) Describe() []string {
	out := make([]string, 0, len(settings))
	for _, s := range settings {
		out = append(out, s.name+"="+s.get(c))
	}
	return out
}

// SettingNames lists the topic configs the log understands.
func SettingNames() []string {
	names := make([]string, 0, len(settings))
	for _, s := range settings {
		names = append(names, s.name)
	}
	return names
}
