//! Retry policy for HTTP calls: exponential backoff with jitter, `Retry-After` honoured, and the
//! classification of each failure (infrastructure = retried, everything else = returned at once).

use crate::llm::error::{ErrorClass, LlmError};
use crate::util::cancel::Cancel;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub base: Duration,
    pub cap: Duration,
    /// Longest `Retry-After` we wait; a longer one is an infrastructure failure at once.
    pub max_retry_after: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

fn jitter() -> f64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    (nanos % 1000) as f64 / 1000.0
}

impl Backoff {
    /// Wait before retry number `retry` (0-based): the server's Retry-After when it gave one, else
    /// base·2^retry capped, scaled by a random factor in [0.5, 1).
    pub fn delay(&self, retry: u32, retry_after: Option<f64>) -> Duration {
        if let Some(seconds) = retry_after {
            return Duration::from_secs_f64(seconds.max(0.0));
        }
        let exp = self.base.as_secs_f64() * 2f64.powi(retry.min(20) as i32);
        Duration::from_secs_f64(exp.min(self.cap.as_secs_f64()) * (0.5 + 0.5 * jitter()))
    }
}

/// `Retry-After` as seconds (the delta-seconds form; an HTTP date is read relative to now).
pub fn parse_retry_after(value: &str) -> Option<f64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then_some(seconds);
    }
    httpdate_seconds(value)
}

/// Seconds from now until an IMF-fixdate like "Sun, 06 Nov 1994 08:49:37 GMT" (0 if past).
fn httpdate_seconds(value: &str) -> Option<f64> {
    let parts: Vec<&str> = value.split_whitespace().collect();
    if parts.len() != 6 || parts[5] != "GMT" {
        return None;
    }
    let day: i64 = parts[1].parse().ok()?;
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|m| *m == parts[2])? as i64
        + 1;
    let year: i64 = parts[3].parse().ok()?;
    let hms: Vec<i64> = parts[4].split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    if hms.len() != 3 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let (y, m) = if month <= 2 { (year - 1, month + 9) } else { (year, month - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    let at = days * 86400 + hms[0] * 3600 + hms[1] * 60 + hms[2];
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs() as i64;
    Some((at - now).max(0) as f64)
}

/// Sleeps `delay` in short slices so a cancel takes effect promptly.
pub fn sleep(delay: Duration, cancel: &Cancel, provider: &str) -> Result<(), LlmError> {
    let until = std::time::Instant::now() + delay;
    while std::time::Instant::now() < until {
        if cancel.is_cancelled() {
            return Err(cancel.error(provider));
        }
        std::thread::sleep((until - std::time::Instant::now()).min(Duration::from_millis(50)));
    }
    Ok(())
}

/// Class of an HTTP status that is not a success.
pub fn classify_status(status: u16) -> ErrorClass {
    match status {
        429 | 500..=599 | 408 => ErrorClass::ApiInfrastructureError,
        401 | 403 => ErrorClass::Configuration,
        _ => ErrorClass::ModelError,
    }
}

/// Class of a transport failure (no HTTP status): all infrastructure except a malformed URL or TLS setup.
pub fn classify_transport(error: &ureq::Error) -> ErrorClass {
    match error {
        ureq::Error::BadUri(_) | ureq::Error::RequireHttpsOnly(_) | ureq::Error::InvalidProxyUrl => {
            ErrorClass::Configuration
        }
        _ => ErrorClass::ApiInfrastructureError,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_forms() {
        assert_eq!(parse_retry_after("3"), Some(3.0));
        assert_eq!(parse_retry_after(" 0.5 "), Some(0.5));
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"), Some(0.0));
        assert_eq!(parse_retry_after("soon"), None);
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let b = Backoff {
            base: Duration::from_millis(100),
            cap: Duration::from_millis(400),
            max_retry_after: Duration::from_secs(1),
        };
        let d0 = b.delay(0, None).as_secs_f64();
        let d5 = b.delay(5, None).as_secs_f64();
        assert!((0.05..0.1).contains(&d0), "{d0}");
        assert!((0.2..0.4).contains(&d5), "{d5}");
        assert_eq!(b.delay(1, Some(2.0)), Duration::from_secs(2));
    }

    #[test]
    fn classes() {
        assert_eq!(classify_status(429), ErrorClass::ApiInfrastructureError);
        assert_eq!(classify_status(503), ErrorClass::ApiInfrastructureError);
        assert_eq!(classify_status(404), ErrorClass::ModelError);
        assert_eq!(classify_status(401), ErrorClass::Configuration);
    }
}
