// Package configs holds the default configuration file, embedded in the
// binary so that compact works from any directory.
package configs

import _ "embed"

// Default is the text of configs/compact.yaml.
//
//go:embed compact.yaml
var Default []byte
