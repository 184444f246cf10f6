//go:build !unix

package loadtest

func descriptorLimit() uint64 { return 0 }
