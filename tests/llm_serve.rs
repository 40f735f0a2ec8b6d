//! `llm serve`'s server over a model that takes a set time per request (no real model): the bounded queue
//! (429 with Retry-After past it), clients that send slowly (408 at the deadline, the model never held),
//! sizes (413), a body cut short, and the graceful shutdown (the running request finishes, the waiting one
//! gets 503, `run` returns). scripts/serve_check.py does the same against the real SmolLM2 with the `openai`
//! client, plus a load of mixed requests and 200 malformed ones.

use brainlens::llm::server::{Options, Server};
use brainlens::llm::{ChatModel, ChatRequest, ChatResponse, ErrorClass, LlmError, Usage};
use brainlens::util::cancel::Cancel;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers "ok" after `ms` milliseconds (a cancel ends the wait early, as the local model does between tokens).
struct Slow {
    ms: u64,
}

impl ChatModel for Slow {
    fn name(&self) -> String {
        "test:slow".into()
    }
    fn chat_with(&self, _: &ChatRequest, cancel: &Cancel, _: &mut dyn FnMut(&str)) -> Result<ChatResponse, LlmError> {
        let end = Instant::now() + Duration::from_millis(self.ms);
        while Instant::now() < end {
            if cancel.is_cancelled() {
                return Err(LlmError::new(ErrorClass::Cancelled, "test", "cancelled"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(ChatResponse {
            text: "ok".into(),
            json: None,
            usage: Usage::default(),
            latency_ms: self.ms as f64,
            model: "slow".into(),
            finish_reason: "stop".into(),
            attempts: 1,
            choices: vec![],
        })
    }
}

fn start(ms: u64, options: Options) -> (String, brainlens::llm::server::Shutdown, std::thread::JoinHandle<()>) {
    let server = Server::bind(Arc::new(Slow { ms }), "127.0.0.1:0", None, options).unwrap();
    let addr = server.addr();
    let handle = server.shutdown_handle().unwrap();
    let run = std::thread::spawn(move || server.run());
    (addr, handle, run)
}

const BODY: &str = r#"{"messages": [{"role": "user", "content": "hi"}]}"#;

fn post(body: &str) -> String {
    format!("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}", body.len())
}

/// Sends `pieces` `gap` apart (stopping once an answer is there) and returns the answer's status line and
/// headers (empty when the server closed without one).
fn exchange(addr: &str, pieces: &[&[u8]], gap: Duration) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    for p in pieces {
        let _ = s.write_all(p);
        std::thread::sleep(gap);
        s.set_nonblocking(true).unwrap();
        let ready = s.peek(&mut [0u8; 1]).is_ok_and(|n| n > 0);
        s.set_nonblocking(false).unwrap();
        if ready {
            break;
        }
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).to_string();
    text.split("\r\n\r\n").next().unwrap_or("").to_string()
}

/// A chat request sent from its own thread; the answer's head when joined.
fn in_background(addr: &str) -> std::thread::JoinHandle<String> {
    let addr = addr.to_string();
    std::thread::spawn(move || exchange(&addr, &[post(BODY).as_bytes()], Duration::ZERO))
}

fn status(head: &str) -> u16 {
    head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[test]
fn a_full_queue_answers_429_with_retry_after() {
    let (addr, stop, run) = start(600, Options { max_waiting: 1, ..Default::default() });
    let calls: Vec<_> = (0..4)
        .map(|i| {
            let addr = addr.clone();
            std::thread::sleep(Duration::from_millis(if i == 0 { 0 } else { 60 }));
            std::thread::spawn(move || exchange(&addr, &[post(BODY).as_bytes()], Duration::ZERO))
        })
        .collect();
    let heads: Vec<String> = calls.into_iter().map(|c| c.join().unwrap()).collect();
    let mut statuses: Vec<u16> = heads.iter().map(|h| status(h)).collect();
    statuses.sort();
    // One runs, one waits, two are refused with how long to wait (the mean so far, 5 s before the first).
    assert_eq!(statuses, [200, 200, 429, 429], "{heads:#?}");
    for h in heads.iter().filter(|h| status(h) == 429) {
        assert!(h.lines().any(|l| l.to_ascii_lowercase().starts_with("retry-after: ")), "{h}");
    }
    stop.shutdown();
    run.join().unwrap();
}

#[test]
fn slow_clients_get_408_and_never_hold_the_model() {
    let mut options = Options::default();
    options.http.head_timeout = Duration::from_millis(1500);
    options.http.body_timeout = Duration::from_millis(1500);
    let (addr, stop, run) = start(50, options);
    let started = Instant::now();
    let slow_head = {
        let addr = addr.clone();
        std::thread::spawn(move || {
            let head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n";
            let pieces: Vec<&[u8]> = head.chunks(1).collect();
            exchange(&addr, &pieces, Duration::from_millis(100))
        })
    };
    let slow_body = {
        let addr = addr.clone();
        std::thread::spawn(move || {
            let full = post(BODY);
            let (head, body) = full.split_at(full.len() - BODY.len());
            let mut pieces: Vec<&[u8]> = vec![head.as_bytes()];
            pieces.extend(body.as_bytes().chunks(1));
            exchange(&addr, &pieces, Duration::from_millis(100))
        })
    };
    // Meanwhile a normal request is answered at once.
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    assert_eq!(status(&exchange(&addr, &[post(BODY).as_bytes()], Duration::ZERO)), 200);
    assert!(t.elapsed() < Duration::from_millis(1000), "answered before the slow ones' deadline: {:?}", t.elapsed());
    assert_eq!(status(&slow_head.join().unwrap()), 408);
    assert_eq!(status(&slow_body.join().unwrap()), 408);
    // The slow senders would take 4.5 s (45 bytes, 0.1 s apart); they are cut at 1.5 s.
    assert!(started.elapsed() < Duration::from_millis(3500), "cut at the deadline: {:?}", started.elapsed());
    stop.shutdown();
    run.join().unwrap();
}

#[test]
fn sizes_and_cut_bodies_are_refused_with_4xx() {
    let mut options = Options::default();
    options.http.max_body = 1000;
    options.http.body_timeout = Duration::from_millis(500);
    let (addr, stop, run) = start(10, options);
    let big = post(&format!(r#"{{"messages": "{}"}}"#, "a".repeat(5000)));
    assert_eq!(status(&exchange(&addr, &[big.as_bytes()], Duration::ZERO)), 413);
    let head = format!("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n{}\r\n", "X-Pad: y\r\n".repeat(70));
    assert_eq!(status(&exchange(&addr, &[head.as_bytes()], Duration::ZERO)), 431);
    let cut = "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"messa";
    assert_eq!(status(&exchange(&addr, &[cut.as_bytes()], Duration::ZERO)), 408, "the rest never comes");
    assert_eq!(status(&exchange(&addr, &[b"\x16\x03\x01 not http\r\n\r\n"], Duration::ZERO)), 400);
    let chunked = "POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    let body = format!("{chunked}{:x}\r\n{BODY}\r\n0\r\n\r\n", BODY.len());
    assert_eq!(status(&exchange(&addr, &[body.as_bytes()], Duration::ZERO)), 200, "a chunked body is read");
    stop.shutdown();
    run.join().unwrap();
}

#[test]
fn shutdown_finishes_the_running_request_and_refuses_the_waiting_one() {
    let (addr, stop, run) = start(800, Options::default());
    let running = in_background(&addr);
    std::thread::sleep(Duration::from_millis(150));
    let waiting = in_background(&addr);
    std::thread::sleep(Duration::from_millis(150));
    let t = Instant::now();
    stop.shutdown();
    assert_eq!(status(&waiting.join().unwrap()), 503);
    assert_eq!(status(&running.join().unwrap()), 200);
    run.join().unwrap();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(TcpStream::connect(&addr).is_err(), "the port is closed once run returns");
}

#[test]
fn past_the_grace_period_the_running_request_is_cancelled_with_503() {
    let (addr, stop, run) = start(30_000, Options { grace: Duration::from_millis(300), ..Default::default() });
    let running = in_background(&addr);
    std::thread::sleep(Duration::from_millis(150));
    let t = Instant::now();
    stop.shutdown();
    assert_eq!(status(&running.join().unwrap()), 503);
    run.join().unwrap();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}
