package history

import "fmt"

// FieldError names the column or field whose text failed to decode.
type FieldError struct {
	Field string // "parts", "metadata", "history"
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// MessageFromRow builds the message a row of agentMessages stands for:
// {id, role, parts: superjson(parts), metadata: NULL ? null :
// superjson(metadata)}, keys in that order.
func MessageFromRow(id, role, parts string, metadata string, metadataNull bool) (Value, error) {
	return messageFromRow(id, role, parts, metadata, metadataNull, 0, 0)
}

// RowLazyAt is the depth MessageFromRowLazy keeps lazy in the parts: a
// part's own members (a tool's input and output) are decoded when first
// read.
const RowLazyAt = 4

// RowMetadataLazyAt is the depth MessageFromRowLazy keeps lazy in the
// metadata: the metadata object itself. Reading a string member
// (compressedHistory) reads it from the text, and its annotations (a Date
// per timestamp) wait until something else is read.
const RowMetadataLazyAt = 2

// MessageFromRowLazy is MessageFromRow with the parts decoded by
// DecodeSuperJSONLazy(text, RowLazyAt) and the metadata by
// DecodeSuperJSONLazy(text, RowMetadataLazyAt): the same message, the same errors, but the
// contents of tool inputs and outputs, and the metadata beyond its string
// members, are only decoded when something reads them.
func MessageFromRowLazy(id, role, parts string, metadata string, metadataNull bool) (Value, error) {
	return messageFromRow(id, role, parts, metadata, metadataNull, RowLazyAt, RowMetadataLazyAt)
}

func messageFromRow(id, role, parts string, metadata string, metadataNull bool, partsLazyAt, metaLazyAt int) (Value, error) {
	p, err := decodeSuperJSON(parts, partsLazyAt)
	if err != nil {
		return Value{}, &FieldError{Field: "parts", Err: err}
	}
	m, err := rowMetadata(nil, metadata, metadataNull, metaLazyAt)
	if err != nil {
		return Value{}, err
	}
	return RowMessageIn(nil, id, role, p, m), nil
}

func rowMetadata(ar *Arena, text string, null bool, lazyAt int) (Value, error) {
	if null {
		return NullValue(), nil
	}
	m, err := decodeSuperJSONIn(ar, text, lazyAt)
	if err != nil {
		return Value{}, &FieldError{Field: "metadata", Err: err}
	}
	return m, nil
}

// RowUnreadLazyAt is the laziness for parts nobody is expected to read
// (those after a chat's last compression point, for extract): the parts
// array itself stays checked text.
const RowUnreadLazyAt = 2

// RowPartsIn decodes a row's parts column as MessageFromRowLazy does, in ar,
// or, with unread, keeps the whole parts array as checked text (decoded
// if something reads it after all). The value and the errors are the same
// either way.
func RowPartsIn(ar *Arena, text string, unread bool) (Value, error) {
	lazyAt := RowLazyAt
	if unread {
		lazyAt = RowUnreadLazyAt
	}
	p, err := decodeSuperJSONIn(ar, text, lazyAt)
	if err != nil {
		return Value{}, &FieldError{Field: "parts", Err: err}
	}
	return p, nil
}

// RowMetadataIn decodes a row's metadata column as MessageFromRowLazy
// does, in ar: null for SQL NULL.
func RowMetadataIn(ar *Arena, text string, null bool) (Value, error) {
	return rowMetadata(ar, text, null, RowMetadataLazyAt)
}

// RowMessageIn is the message {id, role, parts, metadata} of decoded
// columns, carved from ar (nil: allocated).
func RowMessageIn(ar *Arena, id, role string, parts, metadata Value) Value {
	var c *Container
	var vals []Value
	if ar != nil {
		c, vals = ar.a.container(), ar.a.values(4)
	} else {
		c, vals = &Container{}, make([]Value, 4)
	}
	vals[0], vals[1], vals[2], vals[3] = StringValue(id), StringValue(role), parts, metadata
	c.Keys, c.Vals = messageKeys[:4:4], vals
	return Value{k: Object, c: c}
}

// messageKeys are the keys of every message built from a row, shared: Set
// appends to a full slice, which copies it, and never writes into it.
var messageKeys = []string{"id", "role", "parts", "metadata"}

// DecodeMessages decodes superjson text holding a message array (the
// deprecated history column, or the input of `compact serialize`). ok is
// false when the text decodes to something other than an array, which the
// upstream extraction skips without a word.
func DecodeMessages(text string) (msgs []Value, ok bool, err error) {
	return decodeMessages(text, 0)
}

// DecodeMessagesLazy is DecodeMessages with the same laziness as
// MessageFromRowLazy: within each message, the members of a part or of the
// metadata are decoded when first read.
func DecodeMessagesLazy(text string) (msgs []Value, ok bool, err error) {
	// The payload's "json" array is at depth 2, its messages at 3, so a
	// message's parts array is at 4 where a row's is at 2.
	return decodeMessages(text, RowLazyAt+2)
}

func decodeMessages(text string, lazyAt int) (msgs []Value, ok bool, err error) {
	v, err := decodeSuperJSON(text, lazyAt)
	if err != nil {
		return nil, false, err
	}
	if v.k != Array {
		return nil, false, nil
	}
	return v.cc().Vals, true, nil
}

// Role returns msg.role when it is a string.
func Role(msg Value) string {
	r := msg.Get("role")
	if r.k == String {
		return r.s
	}
	return ""
}

// Metadata returns msg.metadata.
func Metadata(msg Value) Value { return msg.Get("metadata") }

// CompressedHistory returns msg.metadata?.compressedHistory.
func CompressedHistory(msg Value) Value { return MetadataSummary(msg.Get("metadata")) }

// MetadataSummary returns metadata?.compressedHistory: the summary a
// message's metadata holds, undefined for none (and for a nullish
// metadata).
func MetadataSummary(metadata Value) Value {
	if metadata.k <= Null {
		return Value{}
	}
	return metadata.Get("compressedHistory")
}

// Describe is a short description of v for error messages.
func Describe(v Value) string {
	switch v.k {
	case String:
		if Len16(v.s) > 40 {
			return fmt.Sprintf("string %q…", Slice16(v.s, 40))
		}
		return fmt.Sprintf("string %q", v.s)
	case Number:
		return "number " + NumberToString(v.n)
	}
	return v.k.String()
}
