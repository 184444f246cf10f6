package web

// pluralS is an English noun for a count: "1 partition", "3 partitions".
// Chinese has no plural, so only the English half needs it.
func pluralS(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
