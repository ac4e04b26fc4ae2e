package ir

// SetCheckFirstBytes lowers the size above which files get the check pass,
// so that tests run it on small files; the returned func restores it.
func SetCheckFirstBytes(n int) (restore func()) {
	old := checkFirstBytes
	checkFirstBytes = n
	return func() { checkFirstBytes = old }
}
