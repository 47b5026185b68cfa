package briefing

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

func TestScratch(t *testing.T) {
	if os.Getenv("F") == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(os.Getenv("F"))
	n, _ := strconv.Atoi(os.Getenv("T"))
	fmt.Println(Write(string(b), Options{Profile: os.Getenv("P"), TargetChars: n}))
}
