//! Lingering close (issue #26): a request answered without reading its whole body (a 413 for a
//! body over the limit) made hyper close the connection with the rest of the body unread, and
//! the operating system answers data arriving on a closed socket with a reset. A client that
//! writes its whole body before reading (Python's `http.client` and `requests`) then saw a
//! broken pipe instead of the 413. Now the connection's task takes the socket back once hyper is
//! done with it, and reads and discards what the client still sends (its write side already
//! shut, so the client sees the end of the answer) until the client closes, nothing comes for
//! `KEEPALIVE_TIMEOUT`, or `LINGERING_CLOSE_TIMEOUT` has passed.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::sync::oneshot;

/// An I/O object sent back through a channel when dropped (hyper drops it when the connection
/// ends), so the connection's task can linger on it.
pub(crate) struct Returned<I> {
    io: Option<I>,
    back: Option<oneshot::Sender<I>>,
}

impl<I> Returned<I> {
    /// `io`, and where it comes back once dropped.
    pub(crate) fn new(io: I) -> (Self, oneshot::Receiver<I>) {
        let (back, returned) = oneshot::channel();
        (Returned { io: Some(io), back: Some(back) }, returned)
    }

    fn io(&mut self) -> io::Result<&mut I> {
        self.io.as_mut().ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "connection already returned"))
    }
}

impl<I> Drop for Returned<I> {
    fn drop(&mut self) {
        if let (Some(io), Some(back)) = (self.io.take(), self.back.take()) {
            // nobody waiting for it: the socket closes here
            let _ = back.send(io);
        }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Returned<I> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().io() {
            Ok(io) => Pin::new(io).poll_read(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Returned<I> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut().io() {
            Ok(io) => Pin::new(io).poll_write(cx, buf),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut().io() {
            Ok(io) => Pin::new(io).poll_write_vectored(cx, bufs),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.as_ref().is_some_and(AsyncWrite::is_write_vectored)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().io() {
            Ok(io) => Pin::new(io).poll_flush(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().io() {
            Ok(io) => Pin::new(io).poll_shutdown(cx),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

/// A request body that raises `unread` when dropped before its end (the handler answered
/// without reading all of it, so hyper will close the connection with the rest unread).
pub(crate) struct Watched<B: Body> {
    inner: B,
    ended: bool,
    unread: Arc<AtomicBool>,
}

impl<B: Body> Watched<B> {
    pub(crate) fn new(inner: B, unread: Arc<AtomicBool>) -> Self {
        Watched { inner, ended: false, unread }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for Watched<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = self.get_mut();
        let frame = Pin::new(&mut this.inner).poll_frame(cx);
        if matches!(frame, Poll::Ready(None)) {
            this.ended = true;
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B: Body> Drop for Watched<B> {
    fn drop(&mut self) {
        if !self.ended && !self.inner.is_end_stream() {
            self.unread.store(true, Relaxed);
        }
    }
}

/// Reads and discards what the client sends on `io` until it closes, sends nothing for `quiet`,
/// or `total` has passed; the socket closes when `io` is dropped afterwards.
pub(crate) async fn discard<I: AsyncRead + Unpin>(mut io: I, total: Duration, quiet: Duration) {
    let deadline = tokio::time::Instant::now() + total;
    let mut sink = vec![0u8; 16 * 1024];
    loop {
        let until = (tokio::time::Instant::now() + quiet).min(deadline);
        match tokio::time::timeout_at(until, io.read(&mut sink)).await {
            Ok(Ok(n)) if n > 0 => {}
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn a_returned_io_comes_back_when_dropped_and_discard_reads_to_the_end() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let (mut io, returned) = Returned::new(ours);
        io.write_all(b"answer").await.unwrap();
        drop(io);
        let io = returned.await.unwrap();
        let mut answer = [0u8; 6];
        theirs.read_exact(&mut answer).await.unwrap();
        assert_eq!(&answer, b"answer");
        let writer = tokio::spawn(async move {
            // far more than the pipe holds: only a reader on the other side lets it through
            theirs.write_all(&[7u8; 10_000]).await.unwrap();
        });
        discard(io, Duration::from_secs(60), Duration::from_secs(60)).await;
        writer.await.unwrap();
    }

    #[tokio::test]
    async fn a_body_dropped_before_its_end_is_marked_unread() {
        let unread = Arc::new(AtomicBool::new(false));
        let full = http_body_util::Full::new(Bytes::from_static(b"body"));
        drop(Watched::new(full, unread.clone()));
        assert!(unread.load(Relaxed), "a body never read is unread");
        unread.store(false, Relaxed);
        let mut read = Watched::new(http_body_util::Full::new(Bytes::from_static(b"body")), unread.clone());
        while std::future::poll_fn(|cx| Pin::new(&mut read).poll_frame(cx)).await.is_some() {}
        drop(read);
        assert!(!unread.load(Relaxed), "a body read to its end is not");
        drop(Watched::new(http_body_util::Empty::<Bytes>::new(), unread.clone()));
        assert!(!unread.load(Relaxed), "nor an empty one");
    }
}
