package extract

import (
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/shard"
	"github.com/compactlab/compact/internal/store"
)

// UnitChat names extract's unit of work for a sample and a shard: a chat
// with every one of its compactions (a continuation and a chain need the
// whole chat). Its key is the chat's id, the chatId its bundles'
// metadata.json holds, so that eval's shard K/N of the bundles is the
// chats of extract's shard K/N.
const UnitChat = "chat"

// selectChats keeps the chats of the sample (stats give the strata: the
// chats' messages and compression points; the agent is
// bundle.AgentStagewise) and of the shard.
func selectChats(chats []store.Chat, stats map[string]store.ChatStat, sh shard.Spec, sm shard.Sampling) ([]store.Chat, *shard.Selection) {
	units := make([]shard.Unit, len(chats))
	for i, c := range chats {
		st := stats[c.ID]
		units[i] = shard.Unit{Key: c.ID, Agent: bundle.AgentStagewise, Length: st.Messages, Compactions: st.Compactions}
	}
	keep, sel := shard.Select(units, sm, sh, UnitChat)
	out := chats[:0:0]
	for i, c := range chats {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out, sel
}
