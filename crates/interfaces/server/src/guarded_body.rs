//! [`Guarded`]: a response body that holds something (a request slot, a connection's in-flight
//! mark) until the body has been sent or dropped, so a streamed answer counts to its last byte.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use http_body::{Frame, SizeHint};

/// `inner`, holding `guard` until it is dropped (hyper drops a body once it is sent).
pub struct Guarded<G> {
    inner: Body,
    _guard: G,
}

impl<G: Send + Unpin + 'static> Guarded<G> {
    /// `body` holding `guard`, as an axum [`Body`].
    pub fn wrap(body: Body, guard: G) -> Body {
        Body::new(Guarded { inner: body, _guard: guard })
    }
}

impl<G: Unpin> http_body::Body for Guarded<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
