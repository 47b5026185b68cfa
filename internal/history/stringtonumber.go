package history

// StringToNumber is JavaScript's StringToNumber, Number(s) for a string:
// white space trimmed, "" is 0, decimal, 0x/0o/0b integers and
// [+-]Infinity; anything else is NaN.
func StringToNumber(s string) float64 { return stringToNumber(s) }
