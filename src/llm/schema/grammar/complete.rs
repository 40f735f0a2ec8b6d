//! What the schema fixes from a state on: the forced bytes every valid continuation starts with, whether the
//! text may end here, and the shortest completion that closes every open value (used when a token budget
//! runs out).

use super::*;

impl Grammar {
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
            Frame::Value(node) | Frame::Spaced(node) => self.value_start(node),
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
                    ObjSt::ExpectKey | ObjSt::SpacedKey => b'"',
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
                ObjSt::ExpectKey | ObjSt::SpacedKey => b'"',
                ObjSt::AfterKey => b':',
            },
            Frame::Arr { items, first, st, lo, .. } => match st {
                ArrSt::Open if lo > 0 => self.value_start(first),
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
