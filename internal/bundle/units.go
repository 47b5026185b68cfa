package bundle

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/compactlab/compact/internal/fsutil"

	"github.com/compactlab/compact/internal/shard"
)

// AgentStagewise is the agent of a bundle whose metadata names none: a
// stagewise bundle.
const AgentStagewise = "stagewise"

// ChatUnits are the units --shard and --sample take of the bundles in
// dirs: units[i] is dirs[i]'s, and every bundle of a chain (ChainOf: its
// chat directory) has its chain's unit, so that a chain is never split.
// A chain's key is the chat id of its first bundle (in directory order)
// whose metadata.json has one, else its chat directory's name: the same
// wherever the tree sits and whatever order it is listed in, and the key
// extract shards the chat by. Its agent is the metadata's agent
// (AgentStagewise when none), its length the chat's messages
// (totalChatMessages), its compactions the chat's (totalCompressions, at
// least the bundles found). Without strata (a shard without a sample)
// only the key is read: a chain's metadata up to its first chat id.
func ChatUnits(dirs []string, strata bool) []shard.Unit {
	by := map[string][]int{}
	for i, d := range dirs {
		c := ChainOf(d)
		by[c] = append(by[c], i)
	}
	units := make([]shard.Unit, len(dirs))
	for chain, idx := range by {
		sort.Slice(idx, func(a, b int) bool { return dirs[idx[a]] < dirs[idx[b]] })
		u := shard.Unit{Compactions: len(idx)}
		for _, i := range idx {
			if !strata && u.Key != "" {
				break
			}
			md, ok := unitMetadata(dirs[i])
			if !ok {
				continue
			}
			if u.Key == "" && md.ChatID != "" {
				u.Key = md.ChatID
			}
			if u.Agent == "" && md.Agent != "" {
				u.Agent = md.Agent
			}
			u.Length = max(u.Length, md.TotalChatMessages)
			u.Compactions = max(u.Compactions, md.TotalCompressions)
		}
		if u.Key == "" {
			u.Key = filepath.Base(chain)
		}
		if u.Agent == "" {
			u.Agent = AgentStagewise
		}
		for _, i := range idx {
			units[i] = u
		}
	}
	return units
}

// unitFields are the fields of metadata.json ChatUnits reads; a field of
// another type than its own is as good as missing.
type unitFields struct {
	ChatID            string
	Agent             string
	TotalChatMessages int
	TotalCompressions int
}

// unitMetadata reads the fields of dir's metadata.json that ChatUnits
// needs, each as it can: false when the file cannot be read as a JSON
// object.
func unitMetadata(dir string) (unitFields, bool) {
	data, err := fsutil.ReadFileLimit(filepath.Join(dir, FileMetadata), MaxRecordBytes)
	if err != nil {
		return unitFields{}, false
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil {
		return unitFields{}, false
	}
	var f unitFields
	_ = json.Unmarshal(raw["chatId"], &f.ChatID)
	_ = json.Unmarshal(raw["agent"], &f.Agent)
	_ = json.Unmarshal(raw["totalChatMessages"], &f.TotalChatMessages)
	_ = json.Unmarshal(raw["totalCompressions"], &f.TotalCompressions)
	return f, true
}
