//! A scripted OpenAI-compatible HTTP server on loopback for the client and runner tests: serves the replies
//! in order, one per connection, and records each request's headers and JSON body.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone)]
pub enum Reply {
    Status(u16, &'static str, String),
    Ok(String),
    Sse(Vec<String>),
    Slow(Duration),
    Close,
}

pub fn ok_body(content: &str) -> String {
    json!({"model": "fake", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 7, "completion_tokens": 3}})
    .to_string()
}

pub struct Fake {
    pub url: String,
    pub requests: Arc<Mutex<Vec<(String, Value)>>>,
}

/// Serves the scripted replies in order, one per connection (each on its own thread); records (headers, body) of each request.
pub fn fake(script: Vec<Reply>) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    std::thread::spawn(move || {
        for reply in script {
            let Ok((stream, _)) = listener.accept() else { return };
            let seen = seen.clone();
            std::thread::spawn(move || serve_one(stream, reply, &seen));
        }
    });
    Fake { url, requests }
}

fn serve_one(mut stream: TcpStream, reply: Reply, seen: &Arc<Mutex<Vec<(String, Value)>>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut headers = String::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        headers.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    seen.lock().unwrap().push((headers, serde_json::from_slice(&body).unwrap_or(Value::Null)));
    let respond = |stream: &mut TcpStream, status: u16, extra: &str, ctype: &str, body: &str| {
        let _ = write!(
            stream,
            "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
            body.len()
        );
    };
    match reply {
        Reply::Status(status, extra, body) => respond(&mut stream, status, extra, "application/json", &body),
        Reply::Ok(body) => respond(&mut stream, 200, "", "application/json", &body),
        Reply::Sse(chunks) => {
            let body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
            respond(&mut stream, 200, "", "text/event-stream", &body)
        }
        Reply::Slow(wait) => {
            std::thread::sleep(wait);
            respond(&mut stream, 200, "", "application/json", &ok_body("late"))
        }
        Reply::Close => {}
    }
    let _ = stream.flush();
}
