package store

import (
	"context"
	"fmt"
	"strings"
)

// Details are the agentInstances columns the live pipeline needs besides
// the messages: the model the chat runs on and the last step's token usage.
type Details struct {
	ID            string
	Title         string
	ActiveModelID string // "" when the column is missing or NULL
	UsedTokens    int64  // used_tokens: usage.totalTokens of the last step
	HasUsedTokens bool
	// ActiveProviderInstanceID is the provider instance the chat's model
	// runs on (schema v10 on); "" when the column is missing or NULL.
	ActiveProviderInstanceID string
}

// ChatDetails reads one chat's details by column name.
func (s *Snap) ChatDetails(ctx context.Context, chatID string) (Details, error) {
	cols := []string{"id", "title"}
	for _, c := range []string{"active_model_id", "used_tokens", "active_provider_instance_id"} {
		if hasColumn(s.schema, TableInstances, c) {
			cols = append(cols, c)
		} else {
			cols = append(cols, "NULL")
		}
	}
	d := Details{}
	found := false
	err := s.query(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+TableInstances+" WHERE id=?", []string{chatID}, func(st *stmt) error {
		if found {
			return nil
		}
		found = true
		d.ID, _ = textOf(st, 0, nil)
		d.Title, _ = textOf(st, 1, nil)
		d.ActiveModelID, _ = textOf(st, 2, nil)
		if !st.isNull(3) {
			d.UsedTokens, d.HasUsedTokens = integerOf(st, 3), true
		}
		d.ActiveProviderInstanceID, _ = textOf(st, 4, nil)
		return nil
	})
	if err != nil {
		return Details{}, err
	}
	if !found {
		return Details{}, fmt.Errorf("%s: %w: %q", s.d.path, ErrChatNotFound, chatID)
	}
	return d, nil
}

// SelectChats keeps the chats whose id is in ids, in the order of chats, and
// lists the ids not found, in the order given. No ids keeps every chat.
func SelectChats(chats []Chat, ids []string) (sel []Chat, missing []string) {
	if len(ids) == 0 {
		return chats, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, c := range chats {
		if want[c.ID] {
			sel = append(sel, c)
			delete(want, c.ID)
		}
	}
	for _, id := range ids {
		if want[id] {
			missing = append(missing, id)
			delete(want, id)
		}
	}
	return sel, missing
}
