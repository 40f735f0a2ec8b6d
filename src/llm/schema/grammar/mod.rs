//! A byte-level recogniser for the JSON texts valid against a compiled `Schema`: a pushdown automaton whose
//! whole state is a small `Copy` value (so a decoder can try a token on a copy, and cache token masks by
//! state). Output is JSON with properties in schema order (optional ones may be skipped), enum values and keys
//! as hard choices, and no whitespace outside strings but one optional space after a `:` or a `,`: the
//! spacing models write by habit (`{"label": "ASD"}`). A compact-only grammar forbade those tokens (` "`,
//! ` [`), and the model fell back to its next choice: with Qwen2.5-Coder-1.5B parsing "the dominant sleep
//! stage was identified as 'Light'", `null` (llama.cpp's JSON-schema grammars allow whitespace there too).

mod complete;
mod enum_trie;
mod number;

use super::{Node, Schema};
use enum_trie::PickTrie;
use number::NumSt;

const DEPTH: usize = 24;
/// `left` of a string without `maxLength` (bounds at or above it count as none).
const UNBOUNDED_CHARS: u16 = u16::MAX;
/// `hi` of an array without `maxItems` (bounds at or above it count as none).
const UNBOUNDED_ITEMS: u8 = u8::MAX;

const FREE_STR: Frame = Frame::Str { esc: 0, utf8: 0, left: UNBOUNDED_CHARS };

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ObjSt {
    Open,
    ExpectKey,
    AfterKey,
    AfterValue,
    /// After `,` and one space: only a key may follow.
    SpacedKey,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ArrSt {
    Open,
    ExpectItem,
    AfterItem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Frame {
    /// A value of this node is expected; nothing consumed yet.
    Value(u16),
    /// As `Value`, after the one space allowed before a value.
    Spaced(u16),
    Obj {
        node: u16,
        next: u8,
        cur: u8,
        st: ObjSt,
    },
    FreeObj {
        st: ObjSt,
    },
    /// `lo` = items still required, `hi` = items still allowed (`UNBOUNDED_ITEMS`: no limit); `first` = the
    /// node of the first item (`items` when the schema gives none).
    Arr {
        items: u16,
        first: u16,
        st: ArrSt,
        lo: u8,
        hi: u8,
    },
    /// Inside a string: `esc` 0 = plain, 1 = after a backslash, 2..=5 = in \u hex digits (6 = after a first
    /// digit `d`, which must continue below the surrogates); `utf8` = continuation
    /// bytes still owed by a multi-byte character; `left` = characters still allowed (`UNBOUNDED_CHARS`: no
    /// limit).
    Str {
        esc: u8,
        utf8: u8,
        left: u16,
    },
    Num {
        integer: bool,
        st: NumSt,
    },
    /// Choosing among the literal texts of set `set`: `pos` bytes matched, `alive` = candidates still possible
    /// (keys, true/false, null).
    Lit {
        set: u16,
        pos: u16,
        alive: u64,
    },
    /// Inside an enum value: node `at` of the byte trie `trie` of its texts (any number of options).
    Pick {
        trie: u16,
        at: u32,
    },
}

/// The recogniser's state: a fixed-size stack (unused slots are kept equal so derived Eq/Hash are exact).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    frames: [Frame; DEPTH],
    len: u8,
}

impl State {
    fn top(&self) -> Option<Frame> {
        (self.len > 0).then(|| self.frames[self.len as usize - 1])
    }
    fn set_top(&mut self, f: Frame) {
        self.frames[self.len as usize - 1] = f;
    }
    fn push(&mut self, f: Frame) -> bool {
        if self.len as usize == DEPTH {
            return false;
        }
        self.frames[self.len as usize] = f;
        self.len += 1;
        true
    }
    fn pop(&mut self) {
        self.len -= 1;
        self.frames[self.len as usize] = Frame::Value(0);
    }
    /// The whole value has been read (nothing more may follow).
    pub fn finished(&self) -> bool {
        self.len == 0
    }
}

/// A compiled schema plus the literal sets (enum texts, object keys, true/false/null) it chooses among.
#[derive(Debug, Clone)]
pub struct Grammar {
    schema: Schema,
    lits: Vec<Vec<Vec<u8>>>,
    node_lit: Vec<u16>,
    any_words: u16,
    /// The literal set `["null"]` of nullable nodes.
    null_lit: u16,
    tries: Vec<PickTrie>,
    /// The trie of each enum node (u16::MAX for other nodes).
    node_trie: Vec<u16>,
}

fn bits(mask: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |i| mask & (1u64 << i) != 0)
}

impl Grammar {
    pub fn new(schema: Schema) -> Grammar {
        let mut lits = vec![
            vec![b"true".to_vec(), b"false".to_vec(), b"null".to_vec()],
            vec![b"true".to_vec(), b"false".to_vec()],
        ];
        let mut node_lit = Vec::with_capacity(schema.nodes.len());
        for node in &schema.nodes {
            node_lit.push(match node {
                Node::Boolean => 1,
                Node::Enum(options) => {
                    lits.push(options.iter().map(|o| o.to_string().into_bytes()).collect());
                    (lits.len() - 1) as u16
                }
                Node::Object { props, .. } | Node::Union { props, .. } => {
                    lits.push(
                        props
                            .iter()
                            .map(|p| serde_json::Value::from(p.name.as_str()).to_string().into_bytes())
                            .collect(),
                    );
                    (lits.len() - 1) as u16
                }
                _ => u16::MAX,
            });
        }
        let null_lit = lits.len() as u16;
        lits.push(vec![b"null".to_vec()]);
        let mut tries = Vec::new();
        let node_trie = schema
            .nodes
            .iter()
            .zip(&node_lit)
            .map(|(node, &lit)| match node {
                Node::Enum(_) => {
                    tries.push(PickTrie::new(&lits[lit as usize], lit));
                    (tries.len() - 1) as u16
                }
                _ => u16::MAX,
            })
            .collect();
        Grammar { schema, lits, node_lit, any_words: 0, null_lit, tries, node_trie }
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn start(&self) -> State {
        let mut s = State { frames: [Frame::Value(0); DEPTH], len: 0 };
        s.push(Frame::Value(self.schema.root as u16));
        s
    }

    /// The literal texts of an enum node (for scoring whole choices).
    pub fn enum_texts(&self, s: &State) -> Option<(usize, Vec<&[u8]>)> {
        match s.top()? {
            Frame::Pick { trie, at } => {
                let t = &self.tries[trie as usize];
                let mut options = Vec::new();
                t.options_below(at as usize, &mut options);
                let texts = &self.lits[t.lit as usize];
                Some((t.nodes[at as usize].depth as usize, options.iter().map(|&c| texts[c].as_slice()).collect()))
            }
            Frame::Value(n) | Frame::Spaced(n) => match &self.schema.nodes[n as usize] {
                Node::Enum(_) => {
                    Some((0, self.lits[self.node_lit[n as usize] as usize].iter().map(|v| v.as_slice()).collect()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The state to key a token mask by, for tokens of at most `reach` bytes: a string with at least `reach`
    /// characters still allowed takes the same tokens as one without a bound (so a bounded string does not
    /// make every character a new mask).
    pub fn mask_key(&self, s: &State, reach: usize) -> State {
        let mut k = *s;
        if let Some(Frame::Str { esc, utf8, left }) = s.top()
            && left as usize >= reach
        {
            k.set_top(Frame::Str { esc, utf8, left: UNBOUNDED_CHARS });
        }
        k
    }

    /// Characters a bounded free string at `s` may still take (None: not in a string, or no bound).
    pub fn string_left(&self, s: &State) -> Option<usize> {
        match s.top() {
            Some(Frame::Str { left, .. }) if left != UNBOUNDED_CHARS => Some(left as usize),
            _ => None,
        }
    }

    /// Is `s` inside a free string (not a key or enum)?
    pub fn in_string(&self, s: &State) -> bool {
        matches!(s.top(), Some(Frame::Str { .. }))
    }

    /// Is `s` at the start of (or inside) an enum value with several candidates left?
    pub fn at_enum_choice(&self, s: &State) -> bool {
        match s.top() {
            Some(Frame::Value(n) | Frame::Spaced(n)) => {
                matches!(&self.schema.nodes[n as usize], Node::Enum(o) if o.len() > 1)
            }
            Some(Frame::Pick { trie, at }) => self.tries[trie as usize].nodes[at as usize].count > 1,
            _ => false,
        }
    }

    fn props(&self, node: u16) -> &[super::Prop] {
        match &self.schema.nodes[node as usize] {
            Node::Object { props, .. } | Node::Union { props, .. } => props,
            _ => &[],
        }
    }

    fn required_left(&self, node: u16, next: u8) -> Option<usize> {
        self.props(node).iter().enumerate().skip(next as usize).find(|(_, p)| p.required).map(|(i, _)| i)
    }

    /// Keys that may come next: from `next` up to and including the first required one.
    fn key_mask(&self, node: u16, next: u8) -> u64 {
        let n = self.props(node).len();
        let last = self.required_left(node, next).unwrap_or(n.saturating_sub(1));
        (next as usize..n.min(last + 1)).fold(0, |m, i| m | (1u64 << i))
    }

    /// Opens a value of `node` with byte `b`: the new frame and whether `b` was consumed by opening it.
    fn open(&self, node: u16, b: u8) -> Option<(Frame, bool)> {
        let number = b == b'-' || b.is_ascii_digit();
        match &self.schema.nodes[node as usize] {
            Node::Any => match b {
                b'{' => Some((Frame::FreeObj { st: ObjSt::Open }, true)),
                b'[' => Some((Frame::Arr { items: 0, first: 0, st: ArrSt::Open, lo: 0, hi: UNBOUNDED_ITEMS }, true)),
                b'"' => Some((FREE_STR, true)),
                _ if number => Some((Frame::Num { integer: false, st: NumSt::Start }, false)),
                b't' | b'f' | b'n' => Some((Frame::Lit { set: self.any_words, pos: 0, alive: 0b111 }, false)),
                _ => None,
            },
            Node::Object { free: true, .. } if b == b'{' => Some((Frame::FreeObj { st: ObjSt::Open }, true)),
            Node::Object { .. } | Node::Union { .. } if b == b'{' => {
                Some((Frame::Obj { node, next: 0, cur: 0, st: ObjSt::Open }, true))
            }
            Node::Array { items, first, min, max } if b == b'[' => {
                let lo = (*min).min(UNBOUNDED_ITEMS as usize - 1) as u8;
                let hi = max.map_or(UNBOUNDED_ITEMS, |m| m.min(UNBOUNDED_ITEMS as usize) as u8);
                let first = first.unwrap_or(*items) as u16;
                Some((Frame::Arr { items: *items as u16, first, st: ArrSt::Open, lo, hi }, true))
            }
            Node::String { max } if b == b'"' => {
                let left = max.map_or(UNBOUNDED_CHARS, |m| m.min(UNBOUNDED_CHARS as usize) as u16);
                Some((Frame::Str { esc: 0, utf8: 0, left }, true))
            }
            Node::Number if number => Some((Frame::Num { integer: false, st: NumSt::Start }, false)),
            Node::Integer if number => Some((Frame::Num { integer: true, st: NumSt::Start }, false)),
            Node::Enum(_) => Some((Frame::Pick { trie: self.node_trie[node as usize], at: 0 }, false)),
            Node::Boolean => {
                let set = self.node_lit[node as usize];
                let alive = (1u64 << self.lits[set as usize].len()) - 1;
                Some((Frame::Lit { set, pos: 0, alive }, false))
            }
            Node::Nullable(_) if b == b'n' => Some((Frame::Lit { set: self.null_lit, pos: 0, alive: 1 }, false)),
            Node::Nullable(inner) => self.open(*inner as u16, b),
            _ => None,
        }
    }

    /// After a child frame popped: a finished key moves its object on to the `:`; a union's tag value turns
    /// the union into the branch it names.
    fn child_done(&self, s: &mut State, chosen: Option<usize>) {
        match s.top() {
            Some(Frame::Obj { node, st: ObjSt::AfterValue, .. })
                if matches!(self.schema.nodes[node as usize], Node::Union { .. }) =>
            {
                if let Node::Union { branches, .. } = &self.schema.nodes[node as usize] {
                    let b = branches[chosen.unwrap_or(0).min(branches.len() - 1)] as u16;
                    s.set_top(Frame::Obj { node: b, next: 1, cur: 0, st: ObjSt::AfterValue });
                }
            }
            Some(Frame::Obj { node, st: ObjSt::Open | ObjSt::ExpectKey | ObjSt::SpacedKey, .. }) => {
                let c = chosen.unwrap_or(0) as u8;
                s.set_top(Frame::Obj { node, next: c + 1, cur: c, st: ObjSt::AfterKey });
            }
            Some(Frame::FreeObj { st: ObjSt::Open | ObjSt::ExpectKey | ObjSt::SpacedKey }) => {
                s.set_top(Frame::FreeObj { st: ObjSt::AfterKey })
            }
            _ => {}
        }
    }

    fn finish(&self, s: &mut State, chosen: Option<usize>) {
        s.pop();
        self.child_done(s, chosen);
    }

    /// Feeds one byte; false when it cannot continue a valid text (the state is then unusable).
    pub fn feed(&self, s: &mut State, b: u8) -> bool {
        loop {
            let Some(top) = s.top() else { return false };
            match top {
                // One space before a value that is not the whole text.
                Frame::Value(node) if b == b' ' && s.len > 1 => {
                    s.set_top(Frame::Spaced(node));
                    return true;
                }
                Frame::Value(node) | Frame::Spaced(node) => {
                    let Some((frame, consumed)) = self.open(node, b) else { return false };
                    s.set_top(frame);
                    if consumed {
                        return true;
                    }
                }
                Frame::Str { esc, utf8, left } => return self.feed_str(s, b, esc, utf8, left),
                Frame::Num { integer, st } => match st.next(b, integer) {
                    Some(st) => {
                        s.set_top(Frame::Num { integer, st });
                        return true;
                    }
                    None if st.complete() => self.finish(s, None),
                    None => return false,
                },
                Frame::Lit { set, pos, alive } => {
                    let cands = &self.lits[set as usize];
                    let p = pos as usize;
                    let adv = bits(alive).filter(|&c| cands[c].get(p) == Some(&b)).fold(0u64, |m, c| m | (1 << c));
                    if adv != 0 {
                        let pos = pos + 1;
                        if bits(adv).all(|c| cands[c].len() == pos as usize) {
                            self.finish(s, bits(adv).next());
                        } else {
                            s.set_top(Frame::Lit { set, pos, alive: adv });
                        }
                        return true;
                    }
                    match bits(alive).find(|&c| cands[c].len() == p) {
                        Some(c) => self.finish(s, Some(c)),
                        None => return false,
                    }
                }
                Frame::Pick { trie, at } => {
                    let t = &self.tries[trie as usize];
                    let here = &t.nodes[at as usize];
                    if let Some(&(_, child)) = here.children.iter().find(|(c, _)| *c == b) {
                        let next = &t.nodes[child as usize];
                        if next.children.is_empty() {
                            self.finish(s, next.end.map(|e| e as usize));
                        } else {
                            s.set_top(Frame::Pick { trie, at: child });
                        }
                        return true;
                    }
                    match here.end {
                        Some(c) => self.finish(s, Some(c as usize)),
                        None => return false,
                    }
                }
                Frame::Obj { node, next, cur, st } => {
                    let done = self.required_left(node, next).is_none();
                    match (st, b) {
                        (ObjSt::ExpectKey, b' ') => {
                            s.set_top(Frame::Obj { node, next, cur, st: ObjSt::SpacedKey });
                            return true;
                        }
                        (ObjSt::Open | ObjSt::ExpectKey | ObjSt::SpacedKey, b'"') => {
                            let alive = self.key_mask(node, next);
                            if alive == 0 || !s.push(Frame::Lit { set: self.node_lit[node as usize], pos: 0, alive }) {
                                return false;
                            }
                        }
                        (ObjSt::Open | ObjSt::AfterValue, b'}') if done => {
                            self.finish(s, None);
                            return true;
                        }
                        (ObjSt::AfterKey, b':') => {
                            s.set_top(Frame::Obj { node, next, cur, st: ObjSt::AfterValue });
                            let value = self.props(node)[cur as usize].node as u16;
                            return s.push(Frame::Value(value));
                        }
                        (ObjSt::AfterValue, b',') if (next as usize) < self.props(node).len() => {
                            s.set_top(Frame::Obj { node, next, cur, st: ObjSt::ExpectKey });
                            return true;
                        }
                        _ => return false,
                    }
                }
                Frame::FreeObj { st } => {
                    match (st, b) {
                        (ObjSt::ExpectKey, b' ') => s.set_top(Frame::FreeObj { st: ObjSt::SpacedKey }),
                        (ObjSt::Open | ObjSt::ExpectKey | ObjSt::SpacedKey, b'"') => return s.push(FREE_STR),
                        (ObjSt::Open | ObjSt::AfterValue, b'}') => self.finish(s, None),
                        (ObjSt::AfterKey, b':') => {
                            s.set_top(Frame::FreeObj { st: ObjSt::AfterValue });
                            return s.push(Frame::Value(0));
                        }
                        (ObjSt::AfterValue, b',') => s.set_top(Frame::FreeObj { st: ObjSt::ExpectKey }),
                        _ => return false,
                    }
                    return true;
                }
                Frame::Arr { items, first, st, lo, hi } => match (st, b) {
                    (ArrSt::Open | ArrSt::AfterItem, b']') if lo == 0 => {
                        self.finish(s, None);
                        return true;
                    }
                    (ArrSt::AfterItem, b',') if hi > 0 => {
                        s.set_top(Frame::Arr { items, first, st: ArrSt::ExpectItem, lo, hi });
                        return true;
                    }
                    (ArrSt::Open, _) if hi == 0 => return false,
                    // The optional space follows a `,`, not the `[`.
                    (ArrSt::Open, b' ') => return false,
                    (ArrSt::Open | ArrSt::ExpectItem, _) => {
                        let node = if st == ArrSt::Open { first } else { items };
                        let hi = if hi == UNBOUNDED_ITEMS { hi } else { hi - 1 };
                        s.set_top(Frame::Arr { items, first, st: ArrSt::AfterItem, lo: lo.saturating_sub(1), hi });
                        if !s.push(Frame::Value(node)) {
                            return false;
                        }
                    }
                    _ => return false,
                },
            }
        }
    }

    /// One byte inside a string: escapes, UTF-8 continuation bytes, the length bound, the closing quote.
    fn feed_str(&self, s: &mut State, b: u8, esc: u8, utf8: u8, left: u16) -> bool {
        let starts_char = (esc, utf8) == (0, 0) && b != b'"';
        if starts_char && left == 0 {
            return false;
        }
        let left = if starts_char && left != UNBOUNDED_CHARS { left - 1 } else { left };
        let next = match (esc, utf8) {
            (0, 0) => match b {
                b'"' => {
                    self.finish(s, None);
                    return true;
                }
                b'\\' => (1, 0),
                0..=0x1f => return false,
                0x20..=0x7f => (0, 0),
                0xc2..=0xdf => (0, 1),
                0xe0..=0xef => (0, 2),
                0xf0..=0xf4 => (0, 3),
                _ => return false,
            },
            (0, n) if (0x80..=0xbf).contains(&b) => (0, n - 1),
            (1, _) => match b {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => (0, 0),
                b'u' => (2, 0),
                _ => return false,
            },
            // No surrogate escapes (\uD800–\uDFFF): alone they are not valid JSON text for parsers.
            (2, _) if b == b'd' || b == b'D' => (6, 0),
            (6, _) if (b'0'..=b'7').contains(&b) => (4, 0),
            (2..=5, _) if b.is_ascii_hexdigit() => (if esc == 5 { 0 } else { esc + 1 }, 0),
            _ => return false,
        };
        s.set_top(Frame::Str { esc: next.0, utf8: next.1, left });
        return true;
    }

    pub fn feed_all(&self, s: &mut State, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.feed(s, b))
    }
}

#[cfg(test)]
mod tests;
