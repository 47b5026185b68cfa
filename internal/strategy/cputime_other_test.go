//go:build !unix

package strategy

import "time"

func cpuTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
