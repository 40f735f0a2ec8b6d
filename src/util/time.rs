//! UTC dates without a date-time dependency: ISO 8601 timestamps for result files, and the `strftime` subset
//! chat templates call (`strftime_now("%d %b %Y")`).

use std::time::{SystemTime, UNIX_EPOCH};

/// Civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub fn format_utc(secs: i64) -> String {
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", s / 3600, s % 3600 / 60, s % 60)
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

pub fn utc_now() -> String {
    format_utc(now_secs())
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `secs` (UTC) formatted as C's `strftime` does for `%Y %m %d %b %B %H %M %S %%`; other directives are kept as
/// written.
pub fn strftime(secs: i64, format: &str) -> String {
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    let month = MONTHS[(m - 1) as usize];
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&format!("{y:04}")),
            Some('m') => out.push_str(&format!("{m:02}")),
            Some('d') => out.push_str(&format!("{d:02}")),
            Some('b') => out.push_str(&month[..3]),
            Some('B') => out.push_str(month),
            Some('H') => out.push_str(&format!("{:02}", s / 3600)),
            Some('M') => out.push_str(&format!("{:02}", s % 3600 / 60)),
            Some('S') => out.push_str(&format!("{:02}", s % 60)),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

/// Today in UTC through [`strftime`].
pub fn strftime_now(format: &str) -> String {
    strftime(now_secs(), format)
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_dates() {
        assert_eq!(super::format_utc(0), "1970-01-01T00:00:00Z");
        // date -u -d @1796055000
        assert_eq!(super::format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::format_utc(1_796_055_000), "2026-11-30T16:10:00Z");
    }

    #[test]
    fn strftime_as_c_writes_it() {
        // python3 -c "import datetime as d; print(d.datetime.utcfromtimestamp(1796055000).strftime('%d %b %Y, %B %H:%M:%S %%'))"
        assert_eq!(super::strftime(1_796_055_000, "%d %b %Y, %B %H:%M:%S %%"), "30 Nov 2026, November 16:10:00 %");
    }
}
