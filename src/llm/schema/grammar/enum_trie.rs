//! An enum's texts as a byte trie: which options a prefix still allows, and how far the nearest end is.

/// One node of an enum's byte trie.
#[derive(Debug, Clone, Default)]
pub(super) struct PickNode {
    pub(super) children: Vec<(u8, u32)>,
    /// The option whose text ends here.
    pub(super) end: Option<u32>,
    pub(super) depth: u16,
    /// Options in this subtree.
    pub(super) count: u32,
    /// Bytes to the nearest end below.
    pub(super) short: u32,
}

/// The texts of one enum as a byte trie.
#[derive(Debug, Clone)]
pub(super) struct PickTrie {
    pub(super) nodes: Vec<PickNode>,
    /// The literal set with the same texts (indexed like the options).
    pub(super) lit: u16,
}

impl PickTrie {
    pub(super) fn new(texts: &[Vec<u8>], lit: u16) -> PickTrie {
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

    pub(super) fn options_below(&self, at: usize, out: &mut Vec<usize>) {
        if let Some(e) = self.nodes[at].end {
            out.push(e as usize);
        }
        for &(_, c) in &self.nodes[at].children {
            self.options_below(c as usize, out);
        }
    }
}
