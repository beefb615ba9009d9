package scenarios

// CheckWritten checks a scenario that a program wrote (mcpchaos init) as
// validate will, with every ${VAR} reference taken as set: what it
// returns is the file's own fault, not the environment's.
func CheckWritten(filename string, data []byte) error {
	_, err := parse(filename, data, func(string) (string, bool) { return "1", true })
	return err
}
