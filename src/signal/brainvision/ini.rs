//! The INI-like text of BrainVision `.vhdr` and `.vmrk` files: decoded as their `Codepage` says (UTF-8, or
//! Latin-1 when the text is not valid UTF-8, as MNE falls back), BOM skipped, `;` comments, sections and
//! `key=value` lines, names matched without regard to case.

/// The sections of a file in order, each with its `key=value` entries in order.
pub struct Ini {
    /// The first line (the format's identification line).
    pub first_line: String,
    sections: Vec<(String, Vec<(String, String)>)>,
}

/// Text from bytes: UTF-8 when valid, else Latin-1 (every byte one character); a UTF-8 BOM is skipped.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

impl Ini {
    pub fn parse(text: &str) -> Ini {
        let mut lines = text.lines();
        let first_line = lines.next().unwrap_or("").trim().to_string();
        let mut sections: Vec<(String, Vec<(String, String)>)> = Vec::new();
        for line in lines {
            let line = line.trim_end_matches('\r');
            let t = line.trim();
            if t.is_empty() || t.starts_with(';') {
                continue;
            }
            if t.starts_with('[') && t.ends_with(']') {
                sections.push((t[1..t.len() - 1].trim().to_string(), Vec::new()));
            } else if let (Some((k, v)), Some(section)) = (t.split_once('='), sections.last_mut()) {
                section.1.push((k.trim().to_string(), v.to_string()));
            }
        }
        Ini { first_line, sections }
    }

    /// The entries of a section (empty when absent).
    pub fn section(&self, name: &str) -> &[(String, String)] {
        self.sections.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map_or(&[], |(_, e)| e)
    }

    /// A value, trimmed.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.section(section).iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_and_encodings() {
        let ini = Ini::parse(
            "Brain Vision Data Exchange Header File Version 1.0\r\n; c\r\n[Common Infos]\r\nDataFile=a.eeg\r\n[Channel Infos]\r\nCh1=Fp1,,0.1,µV\r\n",
        );
        assert_eq!(ini.get("common infos", "datafile"), Some("a.eeg"));
        assert_eq!(ini.section("Channel Infos")[0], ("Ch1".to_string(), "Fp1,,0.1,µV".to_string()));
        assert_eq!(decode(b"\xef\xbb\xbf\xc2\xb5V"), "µV");
        assert_eq!(decode(b"\xb5V"), "µV");
    }
}
