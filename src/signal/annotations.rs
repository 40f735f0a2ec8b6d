//! Editing a recording's annotations with undo and redo (snapshots: annotation lists are small), and MNE's rule
//! for annotations outside the data.

use super::edf::Annotation;

/// What [`crop_to_data`] did: annotations left out (wholly outside the data) and shortened (running past it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cropped {
    pub left_out: usize,
    pub shortened: usize,
}

impl Cropped {
    /// What was done, one line each, for a reader's notices (`what`: "event", "annotation").
    pub fn notices(&self, what: &str, end_s: f64) -> Vec<String> {
        let mut out = Vec::new();
        if self.left_out > 0 {
            let (n, s, verb) = (
                self.left_out,
                if self.left_out == 1 { "" } else { "s" },
                if self.left_out == 1 { "lies" } else { "lie" },
            );
            out.push(format!(
                "{n} {what}{s} {verb} past the last sample ({end_s} s): left out, as MNE leaves them out"
            ));
        }
        if self.shortened > 0 {
            let (n, s) = (self.shortened, if self.shortened == 1 { "" } else { "s" });
            out.push(format!("{n} {what}{s} ran past the last sample ({end_s} s): cut there, as MNE cuts them"));
        }
        out
    }
}

/// MNE's rule when annotations are set on a raw (`Annotations.crop` to the data, from the first sample to
/// `end_s`, the time just after the last one): an annotation that starts after `end_s`, or ends before 0, is
/// left out; one that runs over either edge is cut there. A marker where there is no signal is never listed.
pub fn crop_to_data(items: &mut Vec<Annotation>, end_s: f64) -> Cropped {
    let mut done = Cropped::default();
    items.retain_mut(|a| {
        let duration = a.duration_s.filter(|d| d.is_finite()).unwrap_or(0.0);
        let (start, stop) = (a.onset_s, a.onset_s + duration);
        if start > end_s || stop < 0.0 {
            done.left_out += 1;
            return false;
        }
        if start < 0.0 || stop > end_s {
            done.shortened += 1;
            let (start, stop) = (start.max(0.0), stop.min(end_s));
            a.onset_s = start;
            if a.duration_s.is_some() {
                a.duration_s = Some(stop - start);
            }
        }
        true
    });
    done
}

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
    fn annotations_past_the_data_are_left_out_and_those_over_its_end_cut_as_mne_does() {
        let span = |t: f64, d: f64| Annotation { onset_s: t, duration_s: Some(d), text: "BAD_x".into() };
        let mut items =
            vec![ann(0.0, "a"), ann(90.0, "at the end"), ann(90.5, "past"), span(89.0, 3.0), span(120.0, 1.0)];
        let done = crop_to_data(&mut items, 90.0);
        assert_eq!(done, Cropped { left_out: 2, shortened: 1 });
        let texts: Vec<&str> = items.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(texts, ["a", "at the end", "BAD_x"]);
        assert_eq!(items[2].duration_s, Some(1.0));
        assert_eq!(
            done.notices("event", 90.0),
            [
                "2 events lie past the last sample (90 s): left out, as MNE leaves them out",
                "1 event ran past the last sample (90 s): cut there, as MNE cuts them"
            ]
        );
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
