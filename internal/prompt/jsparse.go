package prompt

import (
	"fmt"
)

// This file parses the expressions and statements that a prompt.ts module's
// user-message builder is made of. It is not a TypeScript parser: it knows
// literals, identifiers, member access, calls, unary and binary operators,
// the conditional operator, and the statements const/let/var, assignment,
// if/else, return and blocks. Type annotations are skipped, not read.

type nodeKind int

const (
	nNum nodeKind = iota
	nStr
	nTmpl
	nIdent
	nMember
	nIndex
	nCall
	nUnary
	nBinary
	nCond
	nParen
)

type node struct {
	kind   nodeKind
	tok    token // the token the node starts at (for errors)
	op     string
	name   string // identifier, member name
	text   string // number literal source
	str    string // string value
	quasis []string
	parts  []*node // template substitutions
	x, y   *node
	z      *node
	args   []*node
}

type stmtKind int

const (
	sEmpty stmtKind = iota
	sDecl
	sAssign
	sIf
	sReturn
	sBlock
)

type decl struct {
	name token
	init *node // nil when there is none
}

type stmt struct {
	kind  stmtKind
	tok   token
	decls []decl // sDecl
	name  token  // sAssign
	val   *node  // sAssign, sReturn (nil for a bare return)
	cond  *node  // sIf
	then  *stmt  // sIf
	els   *stmt  // sIf, may be nil
	body  []*stmt
}

type parser struct {
	src   string
	toks  []token // always ends with a tEOF token
	i     int
	depth int
}

func newParser(src string, toks []token) *parser {
	if len(toks) == 0 || toks[len(toks)-1].kind != tEOF {
		off := len(src)
		if len(toks) > 0 {
			off = toks[len(toks)-1].off
		}
		toks = append(toks, token{kind: tEOF, off: off})
	}
	return &parser{src: src, toks: toks}
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) isIdent(s string) bool {
	t := p.peek()
	return t.kind == tIdent && t.text == s
}

func (p *parser) errAt(t token, format string, a ...any) *ImportError {
	l, c := lineCol(p.src, t.off)
	return &ImportError{Line: l, Col: c, Msg: fmt.Sprintf(format, a...)}
}

func (p *parser) expectPunct(s, context string) (token, error) {
	t := p.peek()
	if t.kind != tPunct || t.text != s {
		return t, p.errAt(t, "%s: expected `%s`, found %s", context, s, t.describe())
	}
	return p.next(), nil
}

func (p *parser) expectIdent(context string) (token, error) {
	t := p.peek()
	if t.kind != tIdent || reserved[t.text] {
		return t, p.errAt(t, "%s: expected a name, found %s", context, t.describe())
	}
	return p.next(), nil
}

func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > maxNesting {
		return p.errAt(t, "nested too deeply")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

var reserved = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "export": true,
	"extends": true, "finally": true, "for": true, "function": true, "if": true, "import": true,
	"in": true, "instanceof": true, "let": true, "new": true, "return": true, "switch": true,
	"throw": true, "try": true, "typeof": true, "var": true, "void": true, "while": true,
	"with": true, "yield": true,
}

// skipType skips a type annotation up to (not including) a token in stop
// found outside brackets; '<' '>' count as brackets.
func (p *parser) skipType(stop ...string) {
	depth := 0
	for {
		t := p.peek()
		if t.kind == tEOF {
			return
		}
		if t.kind == tPunct {
			if depth == 0 {
				for _, s := range stop {
					if t.text == s {
						return
					}
				}
			}
			switch t.text {
			case "(", "[", "{", "<":
				depth++
			case ")", "]", "}", ">":
				depth--
			case ">>":
				depth -= 2
			case ">>>":
				depth -= 3
			}
			if depth < 0 {
				depth = 0
			}
		}
		p.next()
	}
}

// ---- expressions ----

func (p *parser) expr() (*node, error) {
	t := p.peek()
	if err := p.enter(t); err != nil {
		return nil, err
	}
	defer p.leave()
	test, err := p.binary(1)
	if err != nil {
		return nil, err
	}
	if !p.isPunct("?") {
		return test, nil
	}
	q := p.next()
	a, err := p.expr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expectPunct(":", "conditional expression"); err != nil {
		return nil, err
	}
	b, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &node{kind: nCond, tok: q, x: test, y: a, z: b}, nil
}

var binaryPrec = map[string]int{
	"??": 1, "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5,
	"==": 6, "!=": 6, "===": 6, "!==": 6,
	"<": 7, ">": 7, "<=": 7, ">=": 7, "instanceof": 7, "in": 7,
	"<<": 8, ">>": 8, ">>>": 8,
	"+": 9, "-": 9,
	"*": 10, "/": 10, "%": 10,
	"**": 11,
}

func (p *parser) binOp() (string, int) {
	t := p.peek()
	if t.kind == tPunct || (t.kind == tIdent && (t.text == "instanceof" || t.text == "in")) {
		return t.text, binaryPrec[t.text]
	}
	return "", 0
}

func (p *parser) binary(minPrec int) (*node, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		op, prec := p.binOp()
		if prec == 0 || prec < minPrec {
			return left, nil
		}
		t := p.next()
		nextMin := prec + 1
		if op == "**" {
			nextMin = prec
		}
		if err := p.enter(t); err != nil {
			return nil, err
		}
		right, err := p.binary(nextMin)
		p.leave()
		if err != nil {
			return nil, err
		}
		left = &node{kind: nBinary, tok: t, op: op, x: left, y: right}
	}
}

func (p *parser) unary() (*node, error) {
	t := p.peek()
	isUnary := (t.kind == tPunct && (t.text == "!" || t.text == "-" || t.text == "+" || t.text == "~")) ||
		(t.kind == tIdent && (t.text == "typeof" || t.text == "void"))
	if !isUnary {
		return p.postfix()
	}
	p.next()
	if err := p.enter(t); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	return &node{kind: nUnary, tok: t, op: t.text, x: x}, nil
}

func (p *parser) postfix() (*node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		switch {
		case t.kind == tPunct && (t.text == "." || t.text == "?."):
			p.next()
			if p.isPunct("(") || p.isPunct("[") {
				continue // optional call or index: x?.(…), x?.[…]
			}
			name := p.peek()
			if name.kind != tIdent {
				return nil, p.errAt(name, "expected a property name after `%s`, found %s", t.text, name.describe())
			}
			p.next()
			n = &node{kind: nMember, tok: t, x: n, name: name.text}
		case t.kind == tPunct && t.text == "(":
			p.next()
			var args []*node
			for !p.isPunct(")") {
				a, err := p.expr()
				if err != nil {
					return nil, err
				}
				args = append(args, a)
				if !p.isPunct(",") {
					break
				}
				p.next()
			}
			if _, err := p.expectPunct(")", "call arguments"); err != nil {
				return nil, err
			}
			n = &node{kind: nCall, tok: t, x: n, args: args}
		case t.kind == tPunct && t.text == "[":
			p.next()
			idx, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectPunct("]", "index expression"); err != nil {
				return nil, err
			}
			n = &node{kind: nIndex, tok: t, x: n, y: idx}
		default:
			return n, nil
		}
	}
}

func (p *parser) primary() (*node, error) {
	t := p.peek()
	switch t.kind {
	case tNum:
		p.next()
		return &node{kind: nNum, tok: t, text: t.text}, nil
	case tStr:
		p.next()
		return &node{kind: nStr, tok: t, str: t.str}, nil
	case tTmpl:
		p.next()
		n := &node{kind: nTmpl, tok: t, quasis: t.quasis}
		for _, sub := range t.subs {
			sp := newParser(p.src, sub)
			sp.depth = p.depth
			e, err := sp.expr()
			if err != nil {
				return nil, err
			}
			if end := sp.peek(); end.kind != tEOF {
				return nil, p.errAt(end, "template substitution: expected `}`, found %s", end.describe())
			}
			n.parts = append(n.parts, e)
		}
		return n, nil
	case tIdent:
		if reserved[t.text] {
			return nil, p.errAt(t, "expected an expression, found %s", t.describe())
		}
		p.next()
		return &node{kind: nIdent, tok: t, name: t.text}, nil
	case tPunct:
		if t.text == "(" {
			p.next()
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectPunct(")", "parenthesised expression"); err != nil {
				return nil, err
			}
			return &node{kind: nParen, tok: t, x: x}, nil
		}
	}
	return nil, p.errAt(t, "expected an expression, found %s", t.describe())
}

// ---- statements ----

// statements parses statements up to a `}` (not consumed) or the end.
func (p *parser) statements(context string) ([]*stmt, error) {
	var out []*stmt
	for {
		t := p.peek()
		if t.kind == tEOF || (t.kind == tPunct && t.text == "}") {
			return out, nil
		}
		s, err := p.statement(context)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}

func (p *parser) statement(context string) (*stmt, error) {
	t := p.peek()
	if err := p.enter(t); err != nil {
		return nil, err
	}
	defer p.leave()
	switch {
	case t.kind == tPunct && t.text == ";":
		p.next()
		return &stmt{kind: sEmpty, tok: t}, nil
	case t.kind == tPunct && t.text == "{":
		p.next()
		body, err := p.statements(context)
		if err != nil {
			return nil, err
		}
		if _, err := p.expectPunct("}", context); err != nil {
			return nil, err
		}
		return &stmt{kind: sBlock, tok: t, body: body}, nil
	case t.kind == tIdent && (t.text == "const" || t.text == "let" || t.text == "var"):
		p.next()
		s := &stmt{kind: sDecl, tok: t}
		for {
			name, err := p.expectIdent(t.text + " declaration")
			if err != nil {
				return nil, err
			}
			d := decl{name: name}
			if p.isPunct(":") {
				p.next()
				p.skipType("=", ",", ";", "}")
			}
			if p.isPunct("=") {
				p.next()
				if d.init, err = p.expr(); err != nil {
					return nil, err
				}
			}
			s.decls = append(s.decls, d)
			if !p.isPunct(",") {
				break
			}
			p.next()
		}
		p.semicolon()
		return s, nil
	case t.kind == tIdent && t.text == "if":
		p.next()
		if _, err := p.expectPunct("(", "if statement"); err != nil {
			return nil, err
		}
		c, err := p.expr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectPunct(")", "if condition"); err != nil {
			return nil, err
		}
		then, err := p.statement(context)
		if err != nil {
			return nil, err
		}
		s := &stmt{kind: sIf, tok: t, cond: c, then: then}
		if p.isIdent("else") {
			p.next()
			if s.els, err = p.statement(context); err != nil {
				return nil, err
			}
		}
		return s, nil
	case t.kind == tIdent && t.text == "return":
		p.next()
		s := &stmt{kind: sReturn, tok: t}
		if !p.isPunct(";") && !p.isPunct("}") && p.peek().kind != tEOF {
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			s.val = v
		}
		p.semicolon()
		return s, nil
	case t.kind == tIdent && !reserved[t.text] && p.peekAt(1).kind == tPunct && p.peekAt(1).text == "=":
		p.next()
		p.next()
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		p.semicolon()
		return &stmt{kind: sAssign, tok: t, name: t, val: v}, nil
	}
	return nil, p.errAt(t, "%s: unexpected %s; expected a const/let declaration, an if/else chain assigning the hint, an assignment or the return statement", context, t.describe())
}

// semicolon consumes an optional `;` (automatic semicolon insertion is
// assumed otherwise).
func (p *parser) semicolon() {
	if p.isPunct(";") {
		p.next()
	}
}
