package prompt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Names of the upstream exports that Import reads.
const (
	tsTargetConst   = "COMPRESSION_TARGET_CHARS"
	tsSystemConst   = "COMPRESSION_SYSTEM_PROMPT"
	tsBuildFunction = "buildCompressionUserMessage"
)

// Import reads an upstream prompt.ts module and returns the equivalent pack:
//
//   - the system prompt is the value of the exported COMPRESSION_SYSTEM_PROMPT
//     (a template literal without substitutions, or string literals joined
//     with +, optionally followed by .trim()), cooked as JavaScript cooks it;
//   - the target size is COMPRESSION_TARGET_CHARS (a numeric literal, "_"
//     separators allowed);
//   - buildCompressionUserMessage(compactHistory, previousBriefingChars = 0)
//     is evaluated symbolically: its parameter names and its local constants
//     (targetChars, ratio, …) are read from the source, the if/else-if/else
//     chain (or a chain of ?: operators) assigning the hint gives the buckets,
//     and the returned template literal gives the layout.
//
// Inside the hint texts, n.toLocaleString() of the target or of the previous
// size becomes {target} or {prev}, and Math.round(ratio * 100) becomes
// {percent}. Conditions may be prev === 0 (or == 0, or !prev) and
// ratio < number. Anything else is refused with an *ImportError naming the
// line and what was expected. Import never panics.
func Import(src []byte) (*Pack, error) {
	text := string(src)
	toks, err := tokenize(text)
	if err != nil {
		return nil, err
	}
	im := &importer{src: text, toks: toks, globals: map[string]*binding{}}
	return im.run()
}

type importer struct {
	src  string
	toks []token

	target    int // 0 until known
	targetTok token

	params  map[string]valKind // the builder's parameters
	globals map[string]*binding
	locals  map[string]*binding
	depth   int
}

// binding is a name's declaration and, once computed, its value.
type binding struct {
	name    token
	init    *node
	mutable bool
	val     *value
	busy    bool
}

type valKind int

const (
	vCompact valKind = iota + 1
	vPrev
	vTarget // a number that is the target size
	vNumber
	vRatio    // prev / target
	vRatio100 // ratio * 100
	vParts    // text with placeholders
	vHint     // the bucketed hint
)

type partKind int

const (
	pText partKind = iota
	pTarget
	pPrev
	pPercent
	pCompact
	pHint
)

type part struct {
	kind partKind
	text string
	hint *value // pHint
}

type bucket struct {
	when  string
	parts []part
}

type value struct {
	kind    valKind
	num     float64 // vTarget, vNumber
	at      token   // where the number was written
	numeric bool    // vParts that is a Number in JS (Math.round(…))
	parts   []part
	buckets []bucket
}

func (im *importer) errAt(t token, format string, a ...any) *ImportError {
	l, c := lineCol(im.src, t.off)
	return &ImportError{Line: l, Col: c, Msg: fmt.Sprintf(format, a...)}
}

func (im *importer) run() (*Pack, error) {
	// The target size.
	targetInit, targetName, err := im.findConst(tsTargetConst)
	if err != nil {
		return nil, err
	}
	if targetInit != nil {
		n, err := im.literalNumber(targetInit, tsTargetConst)
		if err != nil {
			return nil, err
		}
		if err := im.setTarget(n, targetInit.tok); err != nil {
			return nil, err
		}
		im.globals[tsTargetConst] = &binding{name: targetName, val: &value{kind: vTarget, num: n, at: targetInit.tok}}
	}

	// The system prompt.
	sysInit, _, err := im.findConst(tsSystemConst)
	if err != nil {
		return nil, err
	}
	if sysInit == nil {
		return nil, &ImportError{Msg: "no `" + tsSystemConst + "` declaration found; expected `export const " + tsSystemConst + " = `…`;`"}
	}
	system, err := im.constString(sysInit, tsSystemConst)
	if err != nil {
		return nil, err
	}

	// The user-message builder.
	body, err := im.findBuilder()
	if err != nil {
		return nil, err
	}
	layout, hints, err := im.interpret(body)
	if err != nil {
		return nil, err
	}
	if im.target == 0 {
		return nil, &ImportError{Msg: "the target size is unknown: no `" + tsTargetConst + "` and no numeric target in " + tsBuildFunction}
	}
	p := &Pack{SystemPrompt: system, TargetChars: im.target, Layout: layout, Hints: hints}
	if err := p.Validate(); err != nil {
		return nil, &ImportError{Msg: "the imported pack is not valid: " + err.Error()}
	}
	return p, nil
}

func (im *importer) setTarget(n float64, at token) error {
	if n != math.Trunc(n) || n < 1 || n > 1e15 {
		return im.errAt(at, "the target size must be a positive integer, got %s", jsNumberToString(n))
	}
	if im.target == 0 {
		im.target = int(n)
		im.targetTok = at
		return nil
	}
	if float64(im.target) != n {
		l, _ := lineCol(im.src, im.targetTok.off)
		return im.errAt(at, "a second target size %s differs from %d (line %d)", jsNumberToString(n), im.target, l)
	}
	return nil
}

// findConst finds the top-level `const|let|var name [: T] = init` and returns
// init (nil, nil when there is no such declaration).
func (im *importer) findConst(name string) (*node, token, error) {
	depth := 0
	for i := 0; i < len(im.toks); i++ {
		t := im.toks[i]
		if t.kind == tPunct {
			switch t.text {
			case "{":
				depth++
			case "}":
				depth--
			}
			continue
		}
		if depth != 0 || t.kind != tIdent || (t.text != "const" && t.text != "let" && t.text != "var") {
			continue
		}
		if i+1 >= len(im.toks) || im.toks[i+1].kind != tIdent || im.toks[i+1].text != name {
			continue
		}
		p := newParser(im.src, im.toks)
		p.i = i + 2
		if p.isPunct(":") {
			p.next()
			p.skipType("=", ";")
		}
		if _, err := p.expectPunct("=", "`"+name+"`"); err != nil {
			return nil, token{}, err
		}
		init, err := p.expr()
		if err != nil {
			return nil, token{}, err
		}
		return init, im.toks[i+1], nil
	}
	return nil, token{}, nil
}

// literalNumber reads a numeric literal, possibly in parentheses.
func (im *importer) literalNumber(n *node, what string) (float64, error) {
	for n.kind == nParen {
		n = n.x
	}
	if n.kind != nNum {
		return 0, im.errAt(n.tok, "`%s`: expected a numeric literal such as 30_000, found %s", what, n.tok.describe())
	}
	v, err := parseJSNumber(n.text)
	if err != nil {
		return 0, im.errAt(n.tok, "`%s`: %v", what, err)
	}
	return v, nil
}

// parseJSNumber reads a JavaScript numeric literal (strict mode).
func parseJSNumber(s string) (float64, error) {
	if strings.HasSuffix(s, "n") {
		return 0, fmt.Errorf("BigInt literal %s is not supported", s)
	}
	bad := fmt.Errorf("invalid numeric literal %s", s)
	// "_" must sit between two digits.
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || i == len(s)-1 || !isHex(s[i-1]) || !isHex(s[i+1])) {
			return 0, bad
		}
	}
	clean := strings.ReplaceAll(s, "_", "")
	if len(clean) > 1 && clean[0] == '0' {
		base := 0
		switch clean[1] | 0x20 {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 0 {
			u, err := strconv.ParseUint(clean[2:], base, 64)
			if err != nil {
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
					return 0, fmt.Errorf("numeric literal %s is too large", s)
				}
				return 0, bad
			}
			return float64(u), nil
		}
		if isDigit(clean[1]) {
			return 0, fmt.Errorf("legacy octal or leading-zero literal %s is not allowed in strict code", s)
		}
	}
	if !isDecimalLiteral(clean) {
		return 0, bad
	}
	v, err := strconv.ParseFloat(clean, 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, bad
	}
	return v, nil
}

// constString evaluates a top-level string constant: string and template
// literals without substitutions, joined with +, with .trim(), .trimStart()
// or .trimEnd() applied.
func (im *importer) constString(n *node, what string) (string, error) {
	if err := im.enter(n.tok); err != nil {
		return "", err
	}
	defer im.leave()
	switch n.kind {
	case nParen:
		return im.constString(n.x, what)
	case nStr:
		return n.str, nil
	case nTmpl:
		if len(n.parts) > 0 {
			return "", im.errAt(n.parts[0].tok, "`%s`: ${…} substitutions are not supported here; expected plain text", what)
		}
		return n.quasis[0], nil
	case nBinary:
		if n.op == "+" {
			var b strings.Builder
			for _, operand := range flattenPlus(n) {
				s, err := im.constString(operand, what)
				if err != nil {
					return "", err
				}
				b.WriteString(s)
			}
			return b.String(), nil
		}
	case nCall:
		if m := n.x; m.kind == nMember && len(n.args) == 0 {
			switch m.name {
			case "trim", "trimStart", "trimEnd":
				s, err := im.constString(m.x, what)
				if err != nil {
					return "", err
				}
				return jsTrim(s, m.name != "trimEnd", m.name != "trimStart"), nil
			}
		}
	}
	return "", im.errAt(n.tok, "`%s`: expected a template or string literal, found %s", what, n.tok.describe())
}

func jsTrim(s string, left, right bool) string {
	if left {
		s = strings.TrimLeftFunc(s, isJSSpace)
	}
	if right {
		s = strings.TrimRightFunc(s, isJSSpace)
	}
	return s
}

// findBuilder locates buildCompressionUserMessage, binds its parameters and
// returns its body's statements. Accepted forms:
//
//	[export] function NAME(a[: T], b[: T] [= 0])[: T] { … }
//	[export] const NAME = [function](a, b)[: T] [=>] { … }
func (im *importer) findBuilder() ([]*stmt, error) {
	const want = "expected `export function " + tsBuildFunction + "(compactHistory: string, previousBriefingChars = 0): string { … }`"
	depth := 0
	for i := 0; i < len(im.toks); i++ {
		t := im.toks[i]
		if t.kind == tPunct {
			switch t.text {
			case "{":
				depth++
			case "}":
				depth--
			}
			continue
		}
		if depth != 0 || t.kind != tIdent || t.text != tsBuildFunction || i == 0 {
			continue
		}
		prev := im.toks[i-1]
		if prev.kind != tIdent {
			continue
		}
		p := newParser(im.src, im.toks)
		p.i = i + 1
		arrow := false
		switch prev.text {
		case "function":
		case "const", "let", "var":
			if p.isPunct(":") {
				p.next()
				p.skipType("=")
			}
			if _, err := p.expectPunct("=", tsBuildFunction); err != nil {
				return nil, err
			}
			if p.isIdent("function") {
				p.next()
				if p.peek().kind == tIdent {
					p.next()
				}
			} else {
				arrow = true
			}
		default:
			continue
		}
		if p.isPunct("<") { // type parameters
			p.skipType("(")
		}
		if _, err := p.expectPunct("(", tsBuildFunction+" parameters"); err != nil {
			return nil, err
		}
		var params []token
		for !p.isPunct(")") {
			name, err := p.expectIdent(tsBuildFunction + " parameters")
			if err != nil {
				return nil, err
			}
			params = append(params, name)
			p.skipType(",", ")")
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
		if _, err := p.expectPunct(")", tsBuildFunction+" parameters"); err != nil {
			return nil, err
		}
		if len(params) < 2 {
			return nil, p.errAt(t, "%s has %d parameter(s); expected two (the compact history and the previous briefing's size)", tsBuildFunction, len(params))
		}
		if p.isPunct(":") {
			p.next()
			if arrow {
				p.skipType("=>")
			} else {
				p.skipType("{")
			}
		}
		if arrow {
			if _, err := p.expectPunct("=>", tsBuildFunction); err != nil {
				return nil, err
			}
		}
		if _, err := p.expectPunct("{", tsBuildFunction+" body"); err != nil {
			return nil, err
		}
		body, err := p.statements(tsBuildFunction)
		if err != nil {
			return nil, err
		}
		if _, err := p.expectPunct("}", tsBuildFunction+" body"); err != nil {
			return nil, err
		}
		im.params = map[string]valKind{params[0].text: vCompact, params[1].text: vPrev}
		return body, nil
	}
	return nil, &ImportError{Msg: "function `" + tsBuildFunction + "` not found; " + want}
}

// interpret runs the builder's statements symbolically and returns the
// layout and the buckets of the value it returns.
func (im *importer) interpret(body []*stmt) (Layout, []Hint, error) {
	im.locals = map[string]*binding{}
	for _, s := range body {
		switch s.kind {
		case sEmpty:
		case sDecl:
			for _, d := range s.decls {
				if _, dup := im.locals[d.name.text]; dup {
					return Layout{}, nil, im.errAt(d.name, "`%s` is declared twice", d.name.text)
				}
				im.locals[d.name.text] = &binding{name: d.name, init: d.init, mutable: s.tok.text != "const"}
			}
		case sAssign:
			if err := im.assign(s.name, s.val, nil); err != nil {
				return Layout{}, nil, err
			}
		case sIf:
			if err := im.ifChain(s); err != nil {
				return Layout{}, nil, err
			}
		case sReturn:
			if s.val == nil {
				return Layout{}, nil, im.errAt(s.tok, "%s returns nothing; expected a template literal", tsBuildFunction)
			}
			return im.layout(s.val)
		default:
			return Layout{}, nil, im.errAt(s.tok, "%s: unexpected block; expected declarations, the hint's if/else chain and a return", tsBuildFunction)
		}
	}
	return Layout{}, nil, &ImportError{Msg: tsBuildFunction + " has no return statement"}
}

// assign sets a mutable local to the value of n; buckets, when not nil, is
// the value already computed.
func (im *importer) assign(name token, n *node, v *value) error {
	b, ok := im.locals[name.text]
	if !ok {
		return im.errAt(name, "assignment to `%s`, which is not a local let/var of %s", name.text, tsBuildFunction)
	}
	if !b.mutable {
		return im.errAt(name, "assignment to the constant `%s`", name.text)
	}
	if v == nil {
		var err error
		if v, err = im.eval(n); err != nil {
			return err
		}
	}
	b.val, b.init = v, nil
	return nil
}

// ifChain reads `if (c1) h = a; else if (c2) h = b; … [else h = z;]`.
func (im *importer) ifChain(s *stmt) error {
	var target *token
	var buckets []bucket
	otherwise := false
	for cur := s; cur != nil; {
		var branch *stmt
		when := CondOtherwise
		if cur.kind == sIf {
			w, err := im.condition(cur.cond)
			if err != nil {
				return err
			}
			when, branch = w, cur.then
		} else {
			branch = cur
			otherwise = true
		}
		asg, err := im.singleAssignment(branch)
		if err != nil {
			return err
		}
		if target == nil {
			target = &asg.name
		} else if asg.name.text != target.text {
			return im.errAt(asg.name, "this branch assigns `%s` but the previous ones assign `%s`; expected every branch to assign the hint", asg.name.text, target.text)
		}
		parts, err := im.hintParts(asg.val)
		if err != nil {
			return err
		}
		buckets = append(buckets, bucket{when: when, parts: parts})
		if cur.kind != sIf {
			break
		}
		cur = cur.els
	}
	if !otherwise {
		// No final else: the variable keeps its earlier value.
		b, ok := im.locals[target.text]
		if !ok {
			return im.errAt(*target, "assignment to `%s`, which is not a local let/var of %s", target.text, tsBuildFunction)
		}
		if b.val == nil && b.init == nil {
			return im.errAt(s.tok, "the if/else chain has no final else and `%s` has no earlier value; expected a final else", target.text)
		}
		v, err := im.lookup(*target)
		if err != nil {
			return err
		}
		parts, err := im.partsOf(v, *target)
		if err != nil {
			return err
		}
		buckets = append(buckets, bucket{when: CondOtherwise, parts: parts})
	}
	return im.assign(*target, nil, &value{kind: vHint, buckets: buckets})
}

// singleAssignment unwraps `{ x = …; }` or `x = …;`.
func (im *importer) singleAssignment(s *stmt) (*stmt, error) {
	for s.kind == sBlock {
		var inner []*stmt
		for _, b := range s.body {
			if b.kind != sEmpty {
				inner = append(inner, b)
			}
		}
		if len(inner) != 1 {
			return nil, im.errAt(s.tok, "expected a block holding one assignment to the hint, found %d statements", len(inner))
		}
		s = inner[0]
	}
	if s.kind != sAssign {
		return nil, im.errAt(s.tok, "expected an assignment to the hint variable, found %s", s.tok.describe())
	}
	return s, nil
}

// condition turns a bucket test into its pack form.
func (im *importer) condition(n *node) (string, error) {
	for n.kind == nParen {
		n = n.x
	}
	const want = "expected `previousBriefingChars === 0` or `ratio < number`"
	switch n.kind {
	case nUnary:
		if n.op == "!" {
			if v, err := im.eval(n.x); err == nil && v.kind == vPrev {
				return CondPrevZero, nil
			}
		}
	case nBinary:
		switch n.op {
		case "===", "==":
			a, err := im.eval(n.x)
			if err != nil {
				return "", err
			}
			b, err := im.eval(n.y)
			if err != nil {
				return "", err
			}
			if (a.kind == vPrev && isZero(b)) || (b.kind == vPrev && isZero(a)) {
				return CondPrevZero, nil
			}
		case "<", ">":
			l, r := n.x, n.y
			if n.op == ">" {
				l, r = r, l
			}
			a, err := im.eval(l)
			if err != nil {
				return "", err
			}
			if a.kind == vRatio {
				x, err := im.literalNumber(r, "condition")
				if err != nil {
					return "", err
				}
				return CondRatioBelow(x), nil
			}
		}
	}
	return "", im.errAt(n.tok, "unsupported hint condition; %s", want)
}

func isZero(v *value) bool { return v.kind == vNumber && v.num == 0 }

// hintParts evaluates a hint text.
func (im *importer) hintParts(n *node) ([]part, error) {
	v, err := im.eval(n)
	if err != nil {
		return nil, err
	}
	parts, err := im.partsOf(v, n.tok)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		switch p.kind {
		case pCompact:
			return nil, im.errAt(n.tok, "the hint text contains the compact history; expected only text, {target}, {prev} and {percent}")
		case pHint:
			return nil, im.errAt(n.tok, "the hint text refers to the hint itself")
		}
	}
	return parts, nil
}

// layout reads the returned expression: text, the compact history, text, the
// hint, text.
func (im *importer) layout(n *node) (Layout, []Hint, error) {
	v, err := im.eval(n)
	if err != nil {
		return Layout{}, nil, err
	}
	parts, err := im.partsOf(v, n.tok)
	if err != nil {
		return Layout{}, nil, err
	}
	var texts [3]strings.Builder
	stage := 0 // 0: before the history, 1: between, 2: after the hint
	var hint *value
	for _, p := range parts {
		switch p.kind {
		case pText:
			texts[stage].WriteString(p.text)
		case pCompact:
			if stage != 0 {
				return Layout{}, nil, im.errAt(n.tok, "the returned message must contain the compact history once, before the hint")
			}
			stage = 1
		case pHint:
			if stage != 1 {
				return Layout{}, nil, im.errAt(n.tok, "the returned message must contain the hint once, after the compact history")
			}
			stage, hint = 2, p.hint
		default:
			return Layout{}, nil, im.errAt(n.tok, "the returned message uses a number outside the hint; only the hint may contain {target}, {prev} or {percent}")
		}
	}
	if stage != 2 {
		return Layout{}, nil, im.errAt(n.tok, "the returned message must contain the compact history and then the hint (expected `<chat-history>${compactHistory}</chat-history>\\n\\n${budgetHint}\\n\\n…`)")
	}
	middle, after := texts[1].String(), texts[2].String()
	sep := commonSeparator(middle, after)
	l := Layout{
		Prefix:    texts[0].String(),
		Suffix:    strings.TrimSuffix(middle, sep),
		Separator: sep,
		Closing:   strings.TrimPrefix(after, sep),
	}
	hints := make([]Hint, len(hint.buckets))
	for i, b := range hint.buckets {
		hints[i] = Hint{When: b.when, Template: templateOf(b.parts)}
	}
	return l, hints, nil
}

// commonSeparator is the longest whitespace string that ends middle and
// starts after: the text written on both sides of the hint.
func commonSeparator(middle, after string) string {
	k := 0
	for k < len(middle) && k < len(after) {
		c := after[k]
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		k++
	}
	for ; k > 0; k-- {
		if strings.HasSuffix(middle, after[:k]) {
			return after[:k]
		}
	}
	return ""
}

func templateOf(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		switch p.kind {
		case pTarget:
			b.WriteString("{target}")
		case pPrev:
			b.WriteString("{prev}")
		case pPercent:
			b.WriteString("{percent}")
		default:
			b.WriteString(escapeTemplateText(p.text))
		}
	}
	return b.String()
}

func (im *importer) enter(t token) error {
	im.depth++
	if im.depth > maxNesting {
		return im.errAt(t, "nested too deeply")
	}
	return nil
}

func (im *importer) leave() { im.depth-- }

// lookup returns the value of an identifier.
func (im *importer) lookup(name token) (*value, error) {
	if b, ok := im.locals[name.text]; ok {
		return im.bindingValue(b)
	}
	if k, ok := im.params[name.text]; ok {
		return &value{kind: k}, nil
	}
	b, ok := im.globals[name.text]
	if !ok {
		init, decl, err := im.findConst(name.text)
		if err != nil {
			return nil, err
		}
		if init == nil {
			return nil, im.errAt(name, "unknown name `%s`; expected a parameter, a local or a module constant", name.text)
		}
		b = &binding{name: decl, init: init}
		im.globals[name.text] = b
	}
	return im.bindingValue(b)
}

func (im *importer) bindingValue(b *binding) (*value, error) {
	if b.val != nil {
		return b.val, nil
	}
	if b.init == nil {
		return nil, im.errAt(b.name, "`%s` is used before it is given a value", b.name.text)
	}
	if b.busy {
		return nil, im.errAt(b.name, "`%s` refers to itself", b.name.text)
	}
	b.busy = true
	v, err := im.eval(b.init)
	b.busy = false
	if err != nil {
		return nil, err
	}
	b.val = v
	return v, nil
}

// eval evaluates an expression symbolically.
func (im *importer) eval(n *node) (*value, error) {
	if err := im.enter(n.tok); err != nil {
		return nil, err
	}
	defer im.leave()
	switch n.kind {
	case nParen:
		return im.eval(n.x)
	case nNum:
		f, err := parseJSNumber(n.text)
		if err != nil {
			return nil, im.errAt(n.tok, "%v", err)
		}
		return &value{kind: vNumber, num: f, at: n.tok}, nil
	case nStr:
		return textValue(n.str), nil
	case nTmpl:
		var parts []part
		for i, q := range n.quasis {
			parts = append(parts, part{kind: pText, text: q})
			if i < len(n.parts) {
				v, err := im.eval(n.parts[i])
				if err != nil {
					return nil, err
				}
				ps, err := im.partsOf(v, n.parts[i].tok)
				if err != nil {
					return nil, err
				}
				parts = append(parts, ps...)
			}
		}
		return &value{kind: vParts, parts: mergeText(parts)}, nil
	case nIdent:
		return im.lookup(n.tok)
	case nBinary:
		return im.evalBinary(n)
	case nCall:
		return im.evalCall(n)
	case nCond:
		return im.evalTernary(n)
	}
	return nil, im.errAt(n.tok, "unsupported expression at %s; expected text, the parameters, toLocaleString() or Math.round(ratio * 100)", n.tok.describe())
}

func textValue(s string) *value {
	return &value{kind: vParts, parts: mergeText([]part{{kind: pText, text: s}})}
}

// partsOf converts a value to text as String(value) would.
func (im *importer) partsOf(v *value, at token) ([]part, error) {
	switch v.kind {
	case vParts:
		return v.parts, nil
	case vNumber, vTarget:
		return []part{{kind: pText, text: jsNumberToString(v.num)}}, nil
	case vCompact:
		return []part{{kind: pCompact}}, nil
	case vHint:
		return []part{{kind: pHint, hint: v}}, nil
	case vPrev:
		return nil, im.errAt(at, "the previous size is used without .toLocaleString(); expected previousBriefingChars.toLocaleString()")
	default:
		return nil, im.errAt(at, "a ratio is used as text; expected Math.round(ratio * 100)")
	}
}

func isNumeric(v *value) bool {
	switch v.kind {
	case vNumber, vTarget, vPrev, vRatio, vRatio100:
		return true
	case vParts:
		return v.numeric
	}
	return false
}

// flattenPlus lists the operands of a left-leaning chain a + b + c in order,
// without recursion (long chains are legal JavaScript).
func flattenPlus(n *node) []*node {
	var rev []*node
	for n.kind == nBinary && n.op == "+" {
		rev = append(rev, n.y)
		n = n.x
	}
	out := make([]*node, 0, len(rev)+1)
	out = append(out, n)
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

// evalConcat evaluates a + b + c from left to right as JavaScript does:
// text as soon as one side is text, numeric addition (refused) otherwise.
func (im *importer) evalConcat(n *node) (*value, error) {
	operands := flattenPlus(n)
	first, err := im.eval(operands[0])
	if err != nil {
		return nil, err
	}
	all, err := im.partsOf(first, operands[0].tok)
	if err != nil {
		return nil, err
	}
	all = append([]part(nil), all...)
	numeric := isNumeric(first)
	for _, o := range operands[1:] {
		b, err := im.eval(o)
		if err != nil {
			return nil, err
		}
		if numeric && isNumeric(b) {
			return nil, im.errAt(o.tok, "numeric addition is not supported; expected text joined with +")
		}
		pb, err := im.partsOf(b, o.tok)
		if err != nil {
			return nil, err
		}
		all = append(all, pb...)
		numeric = false
	}
	return &value{kind: vParts, parts: mergeText(all)}, nil
}

// mergeText joins adjacent text parts and drops empty ones.
func mergeText(ps []part) []part {
	var out []part
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, part{kind: pText, text: text.String()})
			text.Reset()
		}
	}
	for _, p := range ps {
		if p.kind == pText {
			text.WriteString(p.text)
			continue
		}
		flush()
		out = append(out, p)
	}
	flush()
	return out
}

func (im *importer) evalBinary(n *node) (*value, error) {
	if n.op == "+" {
		return im.evalConcat(n)
	}
	a, err := im.eval(n.x)
	if err != nil {
		return nil, err
	}
	b, err := im.eval(n.y)
	if err != nil {
		return nil, err
	}
	switch n.op {
	case "/":
		if a.kind == vPrev && (b.kind == vTarget || b.kind == vNumber) {
			if err := im.setTarget(b.num, b.at); err != nil {
				return nil, err
			}
			return &value{kind: vRatio}, nil
		}
		return nil, im.errAt(n.tok, "unsupported division; expected previousBriefingChars / targetChars")
	case "*":
		if (a.kind == vRatio && isHundred(b)) || (isHundred(a) && b.kind == vRatio) {
			return &value{kind: vRatio100}, nil
		}
		return nil, im.errAt(n.tok, "unsupported multiplication; expected ratio * 100")
	}
	return nil, im.errAt(n.tok, "unsupported operator `%s`", n.op)
}

func isHundred(v *value) bool { return v.kind == vNumber && v.num == 100 }

func (im *importer) evalCall(n *node) (*value, error) {
	m := n.x
	if m.kind != nMember {
		return nil, im.errAt(n.tok, "unsupported call; expected x.toLocaleString() or Math.round(ratio * 100)")
	}
	switch m.name {
	case "toLocaleString":
		if len(n.args) != 0 {
			return nil, im.errAt(n.tok, "toLocaleString() with arguments is not supported; the pack formats numbers in the locale chosen at run time")
		}
		v, err := im.eval(m.x)
		if err != nil {
			return nil, err
		}
		switch v.kind {
		case vPrev:
			return &value{kind: vParts, parts: []part{{kind: pPrev}}}, nil
		case vTarget, vNumber:
			if err := im.setTarget(v.num, v.at); err != nil {
				return nil, err
			}
			return &value{kind: vParts, parts: []part{{kind: pTarget}}}, nil
		}
		return nil, im.errAt(m.tok, "toLocaleString() of something other than the target size or the previous size")
	case "round":
		if m.x.kind == nIdent && m.x.name == "Math" && len(n.args) == 1 {
			v, err := im.eval(n.args[0])
			if err != nil {
				return nil, err
			}
			if v.kind == vRatio100 {
				return &value{kind: vParts, numeric: true, parts: []part{{kind: pPercent}}}, nil
			}
			return nil, im.errAt(n.args[0].tok, "Math.round of something other than ratio * 100")
		}
	case "trim", "trimStart", "trimEnd":
		if len(n.args) == 0 {
			v, err := im.eval(m.x)
			if err != nil {
				return nil, err
			}
			if v.kind == vParts && len(v.parts) <= 1 && (len(v.parts) == 0 || v.parts[0].kind == pText) {
				s := ""
				if len(v.parts) == 1 {
					s = v.parts[0].text
				}
				return textValue(jsTrim(s, m.name != "trimEnd", m.name != "trimStart")), nil
			}
			return nil, im.errAt(n.tok, "%s() is supported on plain text only", m.name)
		}
	}
	return nil, im.errAt(n.tok, "unsupported call `.%s(…)`; expected x.toLocaleString() or Math.round(ratio * 100)", m.name)
}

// evalTernary reads `c1 ? a : c2 ? b : z` as hint buckets.
func (im *importer) evalTernary(n *node) (*value, error) {
	var buckets []bucket
	cur := n
	for {
		when, err := im.condition(cur.x)
		if err != nil {
			return nil, err
		}
		parts, err := im.hintParts(cur.y)
		if err != nil {
			return nil, err
		}
		buckets = append(buckets, bucket{when: when, parts: parts})
		alt := cur.z
		for alt.kind == nParen {
			alt = alt.x
		}
		if alt.kind != nCond {
			parts, err := im.hintParts(alt)
			if err != nil {
				return nil, err
			}
			buckets = append(buckets, bucket{when: CondOtherwise, parts: parts})
			return &value{kind: vHint, buckets: buckets}, nil
		}
		cur = alt
	}
}

// jsNumberToString is JavaScript's Number.prototype.toString() (radix 10).
func jsNumberToString(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		return "0"
	}
	a := math.Abs(x)
	if a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(x, 'e', -1, 64) // 1e+21, 1.5e-07
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
