//! Editing a recording's annotations with undo and redo (snapshots: annotation lists are small).

use super::edf::Annotation;

/// The annotation list being edited, kept sorted by onset.
#[derive(Debug, Clone, Default)]
pub struct AnnotationEditor {
    items: Vec<Annotation>,
    undo: Vec<Vec<Annotation>>,
    redo: Vec<Vec<Annotation>>,
    saved: Vec<Annotation>,
}

impl AnnotationEditor {
    /// Starts editing `items` (as read from the file).
    pub fn new(mut items: Vec<Annotation>) -> Self {
        sort(&mut items);
        Self { saved: items.clone(), items, undo: Vec::new(), redo: Vec::new() }
    }

    /// The current list, sorted by onset.
    pub fn items(&self) -> &[Annotation] {
        &self.items
    }

    /// True when the list differs from the file or the last save.
    pub fn is_dirty(&self) -> bool {
        self.items != self.saved
    }

    /// Marks the current list as saved.
    pub fn mark_saved(&mut self) {
        self.saved = self.items.clone();
    }

    fn checkpoint(&mut self) {
        self.undo.push(self.items.clone());
        self.redo.clear();
    }

    /// Adds an annotation; returns its index in the sorted list.
    pub fn add(&mut self, a: Annotation) -> usize {
        self.checkpoint();
        let i = self.items.partition_point(|x| x.onset_s <= a.onset_s);
        self.items.insert(i, a);
        i
    }

    /// Replaces annotation `i`; returns its new index.
    pub fn update(&mut self, i: usize, a: Annotation) -> Option<usize> {
        if i >= self.items.len() || self.items[i] == a {
            return None;
        }
        self.checkpoint();
        self.items.remove(i);
        let j = self.items.partition_point(|x| x.onset_s <= a.onset_s);
        self.items.insert(j, a);
        Some(j)
    }

    /// Removes annotation `i`.
    pub fn remove(&mut self, i: usize) -> Option<Annotation> {
        if i >= self.items.len() {
            return None;
        }
        self.checkpoint();
        Some(self.items.remove(i))
    }

    /// Undoes the last edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        match self.undo.pop() {
            Some(prev) => {
                self.redo.push(std::mem::replace(&mut self.items, prev));
                true
            }
            None => false,
        }
    }

    /// Redoes the last undone edit; false when there is none.
    pub fn redo(&mut self) -> bool {
        match self.redo.pop() {
            Some(next) => {
                self.undo.push(std::mem::replace(&mut self.items, next));
                true
            }
            None => false,
        }
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

fn sort(items: &mut [Annotation]) {
    items.sort_by(|a, b| a.onset_s.total_cmp(&b.onset_s));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(t: f64, s: &str) -> Annotation {
        Annotation { onset_s: t, duration_s: None, text: s.into() }
    }

    #[test]
    fn add_undo_redo() {
        let mut e = AnnotationEditor::new(vec![ann(5.0, "b"), ann(1.0, "a")]);
        assert_eq!(e.items()[0].text, "a");
        assert_eq!(e.add(ann(3.0, "new")), 1);
        assert!(e.is_dirty());
        assert!(e.undo());
        assert_eq!(e.items().len(), 2);
        assert!(!e.is_dirty());
        assert!(e.redo());
        assert_eq!(e.items()[1].text, "new");
        assert_eq!(e.update(1, ann(9.0, "moved")), Some(2));
        assert_eq!(e.remove(0).unwrap().text, "a");
        assert!(e.undo() && e.undo());
        assert_eq!(e.items()[1].text, "new");
    }
}
