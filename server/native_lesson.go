package server

// nativeInLesson is the lessons.NativeRunner of the live session's
// lessons, with s.mu held (lesson actions and commands hold it): a native
// lesson's `>~` lines, and the native commands a learner types while a
// lesson is open, run as they do in free play.
func (s *liveSession) nativeInLesson(line string) (string, error, bool) {
	native, args := nativeCommandFor(line)
	if native == nil {
		return "", nil, false
	}
	out, err := native.run(s, args)
	return out, err, true
}
