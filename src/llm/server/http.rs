//! HTTP/1.1 for the model server, one request per connection: the head parsed by `httparse`, the body read by
//! `Content-Length` or chunked, both within deadlines so a client that sends slowly is answered 408 and let go;
//! sizes capped (431 for a head, 413 for a body). Every response closes the connection.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// How long and how much a client may take to send its request.
#[derive(Debug, Clone)]
pub struct Limits {
    /// From the connection to the end of the headers.
    pub head_timeout: Duration,
    /// From the end of the headers to the end of the body.
    pub body_timeout: Duration,
    /// A response not taken by the client within this time ends the connection (a stream is cancelled).
    pub write_timeout: Duration,
    pub max_head: usize,
    pub max_body: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(60),
            max_head: 64 << 10,
            max_body: 16 << 20,
        }
    }
}

/// A request as read: method, path (query removed), headers (names lower-cased), body.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Why no request was read: answered with `status` (and `message`), or the client left (`status` 0).
#[derive(Debug)]
pub struct Failure {
    pub status: u16,
    pub message: String,
}

impl Failure {
    fn new(status: u16, message: impl Into<String>) -> Failure {
        Failure { status, message: message.into() }
    }
    fn gone() -> Failure {
        Failure::new(0, "the client closed the connection")
    }
}

/// Reads until `deadline`; a read that would pass it fails as a timeout.
struct Timed<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Timed<'_> {
    fn read(&mut self, buf: &mut [u8], what: &str) -> Result<usize, Failure> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Failure::new(408, format!("the {what} did not arrive in time")));
        }
        self.stream.set_read_timeout(Some(left)).map_err(|_| Failure::gone())?;
        match (&*self.stream).read(buf) {
            Ok(n) => Ok(n),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                Err(Failure::new(408, format!("the {what} did not arrive in time")))
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => self.read(buf, what),
            Err(_) => Err(Failure::gone()),
        }
    }
}

/// Reads one request from `stream` within `limits`.
pub fn read_request(stream: &TcpStream, limits: &Limits) -> Result<Request, Failure> {
    let started = Instant::now();
    let mut t = Timed { stream, deadline: started + limits.head_timeout };
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 8192];
    let (method, path, headers, head_len) = loop {
        let n = t.read(&mut chunk, "request head")?;
        if n == 0 {
            return Err(if buf.is_empty() {
                Failure::gone()
            } else {
                Failure::new(400, "the request head is cut short")
            });
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut slots = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut slots);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(len)) => {
                let headers = req
                    .headers
                    .iter()
                    .map(|h| (h.name.to_ascii_lowercase(), String::from_utf8_lossy(h.value).trim().to_string()))
                    .collect::<Vec<_>>();
                let path = req.path.unwrap_or("/").split('?').next().unwrap_or("/").to_string();
                break (req.method.unwrap_or("").to_string(), path, headers, len);
            }
            Ok(httparse::Status::Partial) if buf.len() > limits.max_head => {
                return Err(Failure::new(431, format!("the request head is over {} bytes", limits.max_head)));
            }
            Ok(httparse::Status::Partial) => {}
            Err(httparse::Error::TooManyHeaders) => return Err(Failure::new(431, "more than 64 headers")),
            Err(e) => return Err(Failure::new(400, format!("not an HTTP request: {e}"))),
        }
    };
    let mut request = Request { method, path, headers, body: Vec::new() };
    let rest = buf.split_off(head_len);
    t.deadline = Instant::now() + limits.body_timeout;
    let chunked = request.header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let length = match request.header("content-length") {
        Some(v) => Some(v.parse::<usize>().map_err(|_| Failure::new(400, format!("Content-Length {v:?}")))?),
        None => None,
    };
    if length.is_some_and(|n| n > limits.max_body) {
        return Err(Failure::new(413, format!("the body is over {} bytes", limits.max_body)));
    }
    if (chunked || length.is_some_and(|n| n > 0))
        && request.header("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        let _ = (&*stream).write_all(b"HTTP/1.1 100 Continue\r\n\r\n");
    }
    request.body = if chunked {
        read_chunked(&mut t, rest, limits.max_body)?
    } else {
        let n = length.unwrap_or(0);
        let mut body = rest;
        while body.len() < n {
            let got = t.read(&mut chunk, "request body")?;
            if got == 0 {
                return Err(Failure::new(400, format!("the body ends after {} of {n} bytes", body.len())));
            }
            body.extend_from_slice(&chunk[..got]);
        }
        body.truncate(n);
        body
    };
    Ok(request)
}

/// A chunked body (`Transfer-Encoding: chunked`): sizes parsed by httparse, trailers skipped.
fn read_chunked(t: &mut Timed, mut pending: Vec<u8>, max: usize) -> Result<Vec<u8>, Failure> {
    let mut body = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut more = |pending: &mut Vec<u8>, t: &mut Timed| -> Result<(), Failure> {
        let n = t.read(&mut chunk, "request body")?;
        if n == 0 {
            return Err(Failure::new(400, "the chunked body is cut short"));
        }
        pending.extend_from_slice(&chunk[..n]);
        Ok(())
    };
    loop {
        let (start, size) = loop {
            match httparse::parse_chunk_size(&pending) {
                Ok(httparse::Status::Complete((start, size))) => break (start, size as usize),
                Ok(httparse::Status::Partial) if pending.len() > 1024 => {
                    return Err(Failure::new(400, "a chunk size line is too long"));
                }
                Ok(httparse::Status::Partial) => more(&mut pending, t)?,
                Err(_) => return Err(Failure::new(400, "a bad chunk size")),
            }
        };
        if body.len() + size > max {
            return Err(Failure::new(413, format!("the body is over {max} bytes")));
        }
        if size == 0 {
            // Trailers end with an empty line; nothing in them is used.
            pending.drain(..start);
            while !(pending.starts_with(b"\r\n") || pending.windows(4).any(|w| w == b"\r\n\r\n")) {
                if pending.len() > 8192 {
                    return Err(Failure::new(431, "the chunked trailers are too long"));
                }
                more(&mut pending, t)?;
            }
            return Ok(body);
        }
        while pending.len() < start + size + 2 {
            more(&mut pending, t)?;
        }
        body.extend_from_slice(&pending[start..start + size]);
        pending.drain(..start + size + 2);
    }
}

pub fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Writes a whole response and closes the connection.
pub fn respond(mut stream: &TcpStream, status: u16, headers: &[(&str, String)], content_type: &str, body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        reason(status),
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body)).and_then(|_| stream.flush());
    close(stream);
}

/// Closes after a response: the write side first, then what the client still sends is read and dropped for a
/// moment, so a client still sending (a refused large body) reads the answer instead of a reset.
pub fn close(mut stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let until = Instant::now() + Duration::from_secs(2);
    let mut sink = [0u8; 65536];
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        if stream.set_read_timeout(Some(left.max(Duration::from_millis(1)))).is_err() {
            break;
        }
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
}
