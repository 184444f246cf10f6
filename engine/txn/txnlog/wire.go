package txnlog

import "github.com/loglab/loglab/engine/kafkawire"

// The records are written and read with Kafka's serialization primitives.
type (
	reader = kafkawire.Reader
	writer = kafkawire.Writer
)

// jsonObject is the JSON the dump-log decoders print.
type jsonObject = kafkawire.JSONObject

var appendJSONString = kafkawire.AppendJSONString
