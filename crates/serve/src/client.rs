//! A minimal HTTP/1.1 keep-alive client over one TCP connection: what the API tests and the
//! load benchmark need (fixed-length bodies, as the server sends), without a client library.

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// One kept-alive connection to the server.
#[derive(Debug)]
pub struct Connection {
    stream: BufReader<TcpStream>,
    host: String,
}

impl Connection {
    pub async fn open(addr: std::net::SocketAddr) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream: BufReader::new(stream),
            host: addr.to_string(),
        })
    }

    /// `GET target` → status and body.
    pub async fn get(&mut self, target: &str) -> io::Result<(u16, String)> {
        self.request("GET", target, None).await
    }

    /// `POST target` with a JSON body → status and body.
    pub async fn post(&mut self, target: &str, json: &str) -> io::Result<(u16, String)> {
        self.request("POST", target, Some(json)).await
    }

    async fn request(
        &mut self,
        method: &str,
        target: &str,
        body: Option<&str>,
    ) -> io::Result<(u16, String)> {
        let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {}\r\n", self.host);
        if let Some(b) = body {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            ));
        }
        head.push_str("\r\n");
        let w = self.stream.get_mut();
        w.write_all(head.as_bytes()).await?;
        if let Some(b) = body {
            w.write_all(b.as_bytes()).await?;
        }
        let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        let mut line = String::new();
        self.stream.read_line(&mut line).await?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(format!("bad status line {line:?}")))?;
        let mut length = None;
        loop {
            line.clear();
            if self.stream.read_line(&mut line).await? == 0 {
                return Err(bad("connection closed in the headers".into()));
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((name, value)) = l.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let length = length.ok_or_else(|| bad("no content-length".into()))?;
        let mut buf = vec![0u8; length];
        self.stream.read_exact(&mut buf).await?;
        let text = String::from_utf8(buf).map_err(|_| bad("body is not UTF-8".into()))?;
        Ok((status, text))
    }
}

/// Percent-encodes a query value (everything but unreserved characters).
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
