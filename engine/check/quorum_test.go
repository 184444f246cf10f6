package check

import (
	"reflect"
	"testing"

	"github.com/loglab/loglab/engine/protocol"
)

// TestSameMetadataRecordComparesEveryField: a record differing from
// another in any one field is not the same record, so a field added to
// protocol.MetadataRecord must be added to sameMetadataRecord.
func TestSameMetadataRecordComparesEveryField(t *testing.T) {
	var base protocol.MetadataRecord
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		other := base
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Int32, reflect.Int64:
			f.SetInt(1)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]int32{1}))
		default:
			t.Fatalf("field %s is a %v: teach this test and sameMetadataRecord about it", typ.Field(i).Name, f.Kind())
		}
		if sameMetadataRecord(base, other) {
			t.Errorf("sameMetadataRecord ignores field %s", typ.Field(i).Name)
		}
	}
}
