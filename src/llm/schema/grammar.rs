//! A byte-level recogniser for the JSON texts valid against a compiled `Schema`: a pushdown automaton whose
//! whole state is a small `Copy` value (so a decoder can try a token on a copy, and cache token masks by
//! state). Output is compact JSON: no whitespace outside strings, properties in schema order (optional ones
//! may be skipped), enum values and keys as hard choices.

use super::{Node, Schema};

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ArrSt {
    Open,
    ExpectItem,
    AfterItem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum NumSt {
    Start,
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl NumSt {
    fn complete(self) -> bool {
        matches!(self, NumSt::Zero | NumSt::Int | NumSt::Frac | NumSt::Exp)
    }
    fn next(self, b: u8, integer: bool) -> Option<NumSt> {
        use NumSt::*;
        let digit = b.is_ascii_digit();
        Some(match (self, b) {
            (Start, b'-') => Minus,
            (Start | Minus, b'0') => Zero,
            (Start | Minus, _) if digit => Int,
            (Int, _) if digit => Int,
            (Zero | Int, b'.') if !integer => Dot,
            (Dot | Frac, _) if digit => Frac,
            (Zero | Int | Frac, b'e' | b'E') if !integer => E,
            (E, b'+' | b'-') => ESign,
            (E | ESign | Exp, _) if digit => Exp,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Frame {
    /// A value of this node is expected; nothing consumed yet.
    Value(u16),
    Obj {
        node: u16,
        next: u8,
        cur: u8,
        st: ObjSt,
    },
    FreeObj {
        st: ObjSt,
    },
    /// `lo` = items still required, `hi` = items still allowed (`UNBOUNDED_ITEMS`: no limit).
    Arr {
        items: u16,
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

/// One node of an enum's byte trie.
#[derive(Debug, Clone, Default)]
struct PickNode {
    children: Vec<(u8, u32)>,
    /// The option whose text ends here.
    end: Option<u32>,
    depth: u16,
    /// Options in this subtree.
    count: u32,
    /// Bytes to the nearest end below.
    short: u32,
}

/// The texts of one enum as a byte trie.
#[derive(Debug, Clone)]
struct PickTrie {
    nodes: Vec<PickNode>,
    /// The literal set with the same texts (indexed like the options).
    lit: u16,
}

impl PickTrie {
    fn new(texts: &[Vec<u8>], lit: u16) -> PickTrie {
        let mut nodes = vec![PickNode::default()];
        for (i, t) in texts.iter().enumerate() {
            let mut at = 0usize;
            for &b in t {
                nodes[at].count += 1;
                at = match nodes[at].children.iter().find(|(c, _)| *c == b) {
                    Some(&(_, n)) => n as usize,
                    None => {
                        let depth = nodes[at].depth + 1;
                        nodes.push(PickNode { depth, ..Default::default() });
                        let n = nodes.len() - 1;
                        nodes[at].children.push((b, n as u32));
                        n
                    }
                };
            }
            nodes[at].count += 1;
            nodes[at].end.get_or_insert(i as u32);
        }
        // Children always come after their parent: fill `short` bottom-up.
        for i in (0..nodes.len()).rev() {
            let below = nodes[i].children.iter().map(|&(_, c)| nodes[c as usize].short + 1).min();
            nodes[i].short = if nodes[i].end.is_some() { 0 } else { below.unwrap_or(0) };
        }
        PickTrie { nodes, lit }
    }

    fn options_below(&self, at: usize, out: &mut Vec<usize>) {
        if let Some(e) = self.nodes[at].end {
            out.push(e as usize);
        }
        for &(_, c) in &self.nodes[at].children {
            self.options_below(c as usize, out);
        }
    }
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
            Frame::Value(n) => match &self.schema.nodes[n as usize] {
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

    /// Is `s` inside a free string (not a key or enum)?
    pub fn in_string(&self, s: &State) -> bool {
        matches!(s.top(), Some(Frame::Str { .. }))
    }

    /// Is `s` at the start of (or inside) an enum value with several candidates left?
    pub fn at_enum_choice(&self, s: &State) -> bool {
        match s.top() {
            Some(Frame::Value(n)) => matches!(&self.schema.nodes[n as usize], Node::Enum(o) if o.len() > 1),
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
                b'[' => Some((Frame::Arr { items: 0, st: ArrSt::Open, lo: 0, hi: UNBOUNDED_ITEMS }, true)),
                b'"' => Some((FREE_STR, true)),
                _ if number => Some((Frame::Num { integer: false, st: NumSt::Start }, false)),
                b't' | b'f' | b'n' => Some((Frame::Lit { set: self.any_words, pos: 0, alive: 0b111 }, false)),
                _ => None,
            },
            Node::Object { free: true, .. } if b == b'{' => Some((Frame::FreeObj { st: ObjSt::Open }, true)),
            Node::Object { .. } | Node::Union { .. } if b == b'{' => {
                Some((Frame::Obj { node, next: 0, cur: 0, st: ObjSt::Open }, true))
            }
            Node::Array { items, min, max } if b == b'[' => {
                let lo = (*min).min(UNBOUNDED_ITEMS as usize - 1) as u8;
                let hi = max.map_or(UNBOUNDED_ITEMS, |m| m.min(UNBOUNDED_ITEMS as usize) as u8);
                Some((Frame::Arr { items: *items as u16, st: ArrSt::Open, lo, hi }, true))
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
            Some(Frame::Obj { node, st: ObjSt::Open | ObjSt::ExpectKey, .. }) => {
                let c = chosen.unwrap_or(0) as u8;
                s.set_top(Frame::Obj { node, next: c + 1, cur: c, st: ObjSt::AfterKey });
            }
            Some(Frame::FreeObj { st: ObjSt::Open | ObjSt::ExpectKey }) => {
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
                Frame::Value(node) => {
                    let Some((frame, consumed)) = self.open(node, b) else { return false };
                    s.set_top(frame);
                    if consumed {
                        return true;
                    }
                }
                Frame::Str { esc, utf8, left } => {
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
                        (ObjSt::Open | ObjSt::ExpectKey, b'"') => {
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
                        (ObjSt::Open | ObjSt::ExpectKey, b'"') => return s.push(FREE_STR),
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
                Frame::Arr { items, st, lo, hi } => match (st, b) {
                    (ArrSt::Open | ArrSt::AfterItem, b']') if lo == 0 => {
                        self.finish(s, None);
                        return true;
                    }
                    (ArrSt::AfterItem, b',') if hi > 0 => {
                        s.set_top(Frame::Arr { items, st: ArrSt::ExpectItem, lo, hi });
                        return true;
                    }
                    (ArrSt::Open, _) if hi == 0 => return false,
                    (ArrSt::Open | ArrSt::ExpectItem, _) => {
                        let hi = if hi == UNBOUNDED_ITEMS { hi } else { hi - 1 };
                        s.set_top(Frame::Arr { items, st: ArrSt::AfterItem, lo: lo.saturating_sub(1), hi });
                        if !s.push(Frame::Value(items)) {
                            return false;
                        }
                    }
                    _ => return false,
                },
            }
        }
    }

    pub fn feed_all(&self, s: &mut State, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.feed(s, b))
    }

    /// The bytes every valid continuation of `s` starts with: keys, punctuation and the rest of an enum value
    /// with one candidate left are fixed by the schema, so a decoder can take them without asking the model
    /// (at most `limit` bytes; empty where the text may end or the next byte is a choice).
    pub fn forced(&self, s: &State, limit: usize) -> Vec<u8> {
        let mut t = *s;
        let mut out = Vec::new();
        while out.len() < limit && !self.accepts_end(&t) {
            let mut only: Option<(u8, State)> = None;
            for b in 0..=255u8 {
                let mut next = t;
                if self.feed(&mut next, b) {
                    if only.is_some() {
                        return out;
                    }
                    only = Some((b, next));
                }
            }
            let Some((b, next)) = only else { break };
            out.push(b);
            t = next;
        }
        out
    }

    /// May the text end here (the value is complete)?
    pub fn accepts_end(&self, s: &State) -> bool {
        let mut t = *s;
        loop {
            match t.top() {
                None => return true,
                Some(Frame::Num { st, .. }) if st.complete() => t.pop(),
                Some(Frame::Pick { trie, at }) if self.tries[trie as usize].nodes[at as usize].end.is_some() => t.pop(),
                Some(Frame::Lit { set, pos, alive })
                    if bits(alive).any(|c| self.lits[set as usize][c].len() == pos as usize) =>
                {
                    t.pop()
                }
                Some(_) => return false,
            }
        }
    }

    /// The byte that leads most directly to a complete value.
    fn closing_byte(&self, s: &State, depth: usize) -> u8 {
        let f = s.frames[depth];
        let parent = |d: usize| if d == 0 { b' ' } else { self.closing_byte(s, d - 1) };
        match f {
            Frame::Value(node) => self.value_start(node),
            Frame::Obj { node, next, st, .. } => {
                let needed = self.required_left(node, next).is_some();
                match st {
                    ObjSt::Open => {
                        if needed {
                            b'"'
                        } else {
                            b'}'
                        }
                    }
                    ObjSt::ExpectKey => b'"',
                    ObjSt::AfterKey => b':',
                    ObjSt::AfterValue => {
                        if needed {
                            b','
                        } else {
                            b'}'
                        }
                    }
                }
            }
            Frame::FreeObj { st } => match st {
                ObjSt::Open | ObjSt::AfterValue => b'}',
                ObjSt::ExpectKey => b'"',
                ObjSt::AfterKey => b':',
            },
            Frame::Arr { items, st, lo, .. } => match st {
                ArrSt::Open if lo > 0 => self.value_start(items),
                ArrSt::AfterItem if lo > 0 => b',',
                ArrSt::Open | ArrSt::AfterItem => b']',
                ArrSt::ExpectItem => self.value_start(items),
            },
            Frame::Str { esc, utf8, .. } => match (esc, utf8) {
                (1, _) => b'n',
                (2..=6, _) => b'0',
                (_, n) if n > 0 => 0x80,
                _ => b'"',
            },
            Frame::Num { st, .. } => {
                if st.complete() {
                    parent(depth)
                } else {
                    b'0'
                }
            }
            Frame::Pick { trie, at } => {
                let t = &self.tries[trie as usize];
                let here = &t.nodes[at as usize];
                if here.end.is_some() {
                    parent(depth)
                } else {
                    here.children.iter().min_by_key(|&&(_, c)| t.nodes[c as usize].short).map_or(b'"', |&(b, _)| b)
                }
            }
            Frame::Lit { set, pos, alive } => {
                let cands = &self.lits[set as usize];
                if bits(alive).any(|c| cands[c].len() == pos as usize) {
                    parent(depth)
                } else {
                    let c = bits(alive).min_by_key(|&c| cands[c].len()).unwrap_or(0);
                    cands[c][pos as usize]
                }
            }
        }
    }

    fn value_start(&self, node: u16) -> u8 {
        match &self.schema.nodes[node as usize] {
            Node::Any | Node::Number | Node::Integer => b'0',
            Node::Object { .. } | Node::Union { .. } => b'{',

            Node::Array { .. } => b'[',
            Node::String { .. } => b'"',
            Node::Boolean => b'f',
            Node::Enum(_) => {
                let set = &self.lits[self.node_lit[node as usize] as usize];
                set.iter().min_by_key(|t| t.len()).map_or(b'0', |t| t[0])
            }
            Node::Nullable(_) => b'n',
        }
    }

    /// The shortest-ish bytes that complete `s` into a valid value (used when the token budget runs out).
    pub fn completion(&self, s: &State) -> Vec<u8> {
        let mut t = *s;
        let mut out = Vec::new();
        while !self.accepts_end(&t) && out.len() < 1 << 16 {
            let b = self.closing_byte(&t, t.len as usize - 1);
            if !self.feed(&mut t, b) {
                break;
            }
            out.push(b);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn grammar(schema: Value) -> Grammar {
        Grammar::new(Schema::compile(&schema).unwrap())
    }

    fn accepts(g: &Grammar, text: &str) -> bool {
        let mut s = g.start();
        g.feed_all(&mut s, text.as_bytes()) && g.accepts_end(&s)
    }

    fn tool_schema() -> Value {
        json!({"type": "object", "properties": {
            "tool": {"enum": ["retrieve_knowledge", "retrieve_case", "degree"]},
            "arguments": {"type": "object", "properties": {
                "query": {"type": "string"},
                "regions_q": {"type": "array", "items": {"type": "string"}},
                "k": {"type": "integer"},
                "weighted": {"type": "boolean"}
            }, "required": ["query"]},
            "score": {"type": "number"},
            "extra": {}
        }, "required": ["tool", "arguments"]})
    }

    #[test]
    fn forced_bytes_are_the_only_continuation() {
        let g = grammar(json!({"type": "object", "properties": {
            "label": {"enum": ["sub-100206", "sub-100307"]},
            "note": {"type": "string"},
            "k": {"type": "integer"}
        }, "required": ["label", "note", "k"]}));
        let mut s = g.start();
        assert_eq!(g.forced(&s, 64), br#"{"label":"sub-100"#.to_vec());
        assert!(g.feed_all(&mut s, br#"{"label":"sub-100"#));
        assert!(g.forced(&s, 64).is_empty(), "two labels remain");
        assert!(g.feed_all(&mut s, b"3"));
        assert_eq!(g.forced(&s, 64), br#"07","note":""#.to_vec());
        assert_eq!(g.forced(&s, 3), b"07\"".to_vec());
        assert!(g.feed_all(&mut s, br#"07","note":"x"#));
        assert!(g.forced(&s, 64).is_empty(), "inside a free string");
        assert!(g.feed_all(&mut s, br#"","k":1"#));
        assert!(g.forced(&s, 64).is_empty(), "more digits or the end");
    }

    #[test]
    fn accepts_exactly_the_valid_texts() {
        let g = grammar(tool_schema());
        for ok in [
            r#"{"tool":"degree","arguments":{"query":"hubs"}}"#,
            r#"{"tool":"retrieve_case","arguments":{"query":"a \"q\" \u00e9 é","regions_q":["Precuneus_L",""],"k":-12,"weighted":false},"score":-0.5e+3}"#,
            r#"{"tool":"degree","arguments":{"query":""},"extra":{"a":[1,true,null,{"b":"c"}]}}"#,
        ] {
            assert!(accepts(&g, ok), "{ok}");
            let v: Value = serde_json::from_str(ok).unwrap();
            g.schema().validate(&v).unwrap();
        }
        for bad in [
            r#"{"tool":"degre","arguments":{"query":"x"}}"#,
            r#"{"tool":"degree","arguments":{"regions_t":["x"]}}"#,
            r#"{"tool":"degree"}"#,
            r#"{"arguments":{"query":"x"},"tool":"degree"}"#,
            r#"{"tool":"degree","arguments":{"query":"x","k":1.5}}"#,
            r#"{"tool":"degree","arguments":{"query":"x"}} "#,
            r#"{"tool":"degree","arguments":{"query":"x"},"score":01}"#,
            "{\"tool\":\"degree\",\"arguments\":{\"query\":\"a\nb\"}}",
            r#"{"tool": "degree","arguments":{"query":"x"}}"#,
        ] {
            assert!(!accepts(&g, bad), "{bad}");
        }
    }

    #[test]
    fn every_prefix_completes_to_a_valid_value() {
        let g = grammar(tool_schema());
        let text = r#"{"tool":"retrieve_case","arguments":{"query":"a \"q\" \u00e9 é","regions_q":["P",""],"k":-12,"weighted":false},"score":-0.5e+3,"extra":{"a":[1,true,null,{"b":"c"}]}}"#;
        let mut s = g.start();
        for (i, &b) in text.as_bytes().iter().enumerate() {
            assert!(g.feed(&mut s, b), "byte {i}");
            let mut done = text.as_bytes()[..=i].to_vec();
            done.extend(g.completion(&s));
            let v: Value =
                serde_json::from_slice(&done).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(&done)));
            g.schema().validate(&v).unwrap();
            assert!(accepts(&g, std::str::from_utf8(&done).unwrap()));
        }
        assert!(s.finished());
    }

    #[test]
    fn enum_numbers_with_shared_prefixes() {
        let g = grammar(json!({"type": "array", "items": {"enum": [1, 10, "a"]}}));
        assert!(accepts(&g, r#"[1,10,"a",1]"#));
        assert!(!accepts(&g, "[100]"));
        assert!(!accepts(&g, "[1"));
        assert_eq!(g.completion(&g.start()), b"[]");
        let g = grammar(json!({"type": "integer"}));
        assert!(accepts(&g, "-7") && !accepts(&g, "-") && !accepts(&g, "7.0"));
    }

    fn union_schema() -> Value {
        json!({"type": "object", "properties": {"steps": {"type": "array", "items": {"anyOf": [
            {"type": "object", "properties": {
                "args": {"type": "object", "properties": {"view": {"enum": ["v1", "v2", "$1"]}, "lo": {"type": "number"}},
                         "required": ["view", "lo"], "additionalProperties": false},
                "tool": {"const": "band_power"}}, "required": ["tool", "args"]},
            {"type": "object", "properties": {"tool": {"const": "load_hypnogram"},
                "args": {"type": "object", "properties": {"path": {"enum": (0..100).map(|i| format!("data/s{i}.csv")).collect::<Vec<_>>()}},
                         "required": ["path"], "additionalProperties": false}}, "required": ["tool", "args"]},
            {"type": "object", "properties": {"tool": {"const": "rereference"}, "args": {"type": "object", "properties": {}, "additionalProperties": false}},
             "required": ["tool"]}
        ]}}}, "required": ["steps"]})
    }

    #[test]
    fn unions_take_each_branch_with_its_own_arguments() {
        let g = grammar(union_schema());
        for ok in [
            r#"{"steps":[]}"#,
            r#"{"steps":[{"tool":"band_power","args":{"view":"v2","lo":8}},{"tool":"load_hypnogram","args":{"path":"data/s57.csv"}}]}"#,
            r#"{"steps":[{"tool":"rereference","args":{}},{"tool":"rereference"}]}"#,
        ] {
            assert!(accepts(&g, ok), "{ok}");
            g.schema().validate(&serde_json::from_str(ok).unwrap()).unwrap();
        }
        for bad in [
            r#"{"steps":[{"tool":"band_power","args":{"path":"data/s1.csv"}}]}"#,
            r#"{"steps":[{"tool":"load_hypnogram","args":{"view":"v1","lo":1}}]}"#,
            r#"{"steps":[{"tool":"band_power","args":{"view":"v3","lo":8}}]}"#,
            r#"{"steps":[{"tool":"load_hypnogram","args":{"path":"data/s100.csv"}}]}"#,
            r#"{"steps":[{"args":{"view":"v1","lo":1},"tool":"band_power"}]}"#,
            r#"{"steps":[{"tool":"filter","args":{}}]}"#,
        ] {
            assert!(!accepts(&g, bad), "{bad}");
            if let Ok(v) = serde_json::from_str::<Value>(bad) {
                assert!(
                    g.schema().validate(&v).is_err() || bad.contains(r#""args":{"view":"v1","lo":1},"tool""#),
                    "{bad}"
                );
            }
        }
        let e = Schema::compile(&json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}))
            .unwrap_err();
        assert!(e.contains("const"), "{e}");
    }

    fn bounded_schema() -> Value {
        json!({"type": "object", "properties": {
            "claims": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "object", "properties": {
                "claim": {"type": "string", "maxLength": 5},
                "evidence": {"type": "array", "maxItems": 1, "items": {"enum": ["G:a", "R:b"]}}
            }, "required": ["claim", "evidence"]}},
            "none": {"type": "array", "maxItems": 0, "items": {"type": "string"}}
        }, "required": ["claims"]})
    }

    #[test]
    fn lengths_and_item_counts_are_bounded() {
        let g = grammar(bounded_schema());
        for ok in [
            r#"{"claims":[{"claim":"abcde","evidence":[]}]}"#,
            r#"{"claims":[{"claim":"é\"x\u00e9","evidence":["G:a"]},{"claim":"","evidence":[]}],"none":[]}"#,
        ] {
            assert!(accepts(&g, ok), "{ok}");
            g.schema().validate(&serde_json::from_str(ok).unwrap()).unwrap();
        }
        for bad in [
            r#"{"claims":[]}"#,
            r#"{"claims":[{"claim":"abcdef","evidence":[]}]}"#,
            r#"{"claims":[{"claim":"a","evidence":["G:a","R:b"]}]}"#,
            r#"{"claims":[{"claim":"a","evidence":[]},{"claim":"b","evidence":[]},{"claim":"c","evidence":[]}]}"#,
            r#"{"claims":[{"claim":"a","evidence":[]}],"none":["x"]}"#,
        ] {
            assert!(!accepts(&g, bad), "{bad}");
            assert!(g.schema().validate(&serde_json::from_str(bad).unwrap()).is_err(), "{bad}");
        }
        // The completion of an empty start fills the one required claim.
        let done = g.completion(&g.start());
        g.schema().validate(&serde_json::from_slice(&done).unwrap()).unwrap();
        // Far from its bound a string is keyed like an unbounded one; near it, by what is left.
        let mut s = g.start();
        assert!(g.feed_all(&mut s, br#"{"claims":[{"claim":""#));
        let far = g.mask_key(&s, 3);
        assert!(g.feed_all(&mut s, b"abc"));
        assert_ne!(g.mask_key(&s, 3), far);
        assert!(g.feed_all(&mut s, b"de") && !g.feed(&mut s.clone(), b'f') && g.feed(&mut s, b'"'));
    }

    /// Property: random walks through the grammar (a random allowed byte at each step, then the completion)
    /// always end in a text that parses and validates.
    #[test]
    fn every_random_walk_validates() {
        let mut seed = 7u64;
        for schema in [union_schema(), tool_schema(), bounded_schema()] {
            let g = grammar(schema);
            for _ in 0..300 {
                let mut s = g.start();
                let mut text = Vec::new();
                let steps = (crate::util::rng::splitmix64(&mut seed) % 120) as usize;
                for _ in 0..steps {
                    let allowed: Vec<u8> = (0x20u8..0x7f).filter(|&b| g.feed(&mut s.clone(), b)).collect();
                    if allowed.is_empty() {
                        break;
                    }
                    let b = allowed[(crate::util::rng::splitmix64(&mut seed) % allowed.len() as u64) as usize];
                    assert!(g.feed(&mut s, b));
                    text.push(b);
                }
                text.extend(g.completion(&s));
                // JSON allows exponents that overflow an f64; serde_json refuses those, which is not a grammar fault.
                let v: Value = match serde_json::from_slice(&text) {
                    Ok(v) => v,
                    Err(e) if e.to_string().contains("number out of range") => continue,
                    Err(e) => panic!("{}: {e}", String::from_utf8_lossy(&text)),
                };
                g.schema().validate(&v).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(&text)));
            }
        }
    }

    #[test]
    fn nullable_values() {
        let g = grammar(json!({"type": "object", "properties": {
            "x": {"type": ["number", "null"]}, "tags": {"type": ["array", "null"], "items": {"type": "string"}}},
            "required": ["x", "tags"]}));
        for ok in [r#"{"x":null,"tags":null}"#, r#"{"x":1.5,"tags":["a"]}"#, r#"{"x":-2,"tags":[]}"#] {
            assert!(accepts(&g, ok), "{ok}");
            g.schema().validate(&serde_json::from_str(ok).unwrap()).unwrap();
        }
        for bad in [r#"{"x":nul,"tags":null}"#, r#"{"x":"1","tags":null}"#, r#"{"x":true,"tags":null}"#] {
            assert!(!accepts(&g, bad), "{bad}");
        }
        // Out of budget, a nullable value closes as null: nothing is invented.
        assert_eq!(g.completion(&g.start()), br#"{"x":null,"tags":null}"#);
    }
}
