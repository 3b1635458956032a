#if Server
    internal import NIOCore
    internal import NIOHTTP1

    /// Answers HTTP/1.0 requests as HTTP/1.0 can read them. Above NIOHTTP1 the request's version
    /// is gone, and every response goes out as HTTP/1.1, with `Transfer-Encoding: chunked` when
    /// its length is not known beforehand (a live stream): an HTTP/1.0 client has no chunked
    /// coding and reads the chunk sizes as part of the body. For a request of version 1.0 this
    /// handler marks the request `Connection: close` (so the connection ends after its answer)
    /// and writes the response head as HTTP/1.0 with `Connection: close`: a body of unknown
    /// length then goes out as it is, and its end is the connection's end. Responses of a known
    /// length keep their `Content-Length`. An HTTP/1.0 request's `Expect` is removed (a server
    /// must ignore it, RFC 9110 §10.1.1; `ConnectionGuard` answers the others).
    ///
    /// Sits between NIOHTTP1's request decoder and the rest (`ConnectionGuard` puts it there);
    /// runs on the channel's event loop only.
    final class HTTP10Framing: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart

        /// The versions of the requests whose responses have not started, oldest first
        /// (pipelined requests are answered in order).
        private var versions: [(version: HTTPVersion, isHead: Bool)] = []
        /// True from a final response's head to its end.
        private var responding = false

        /// How NIOHTTP1's response encoder frames the body of the response being sent, once its
        /// head has gone out and until its end: in chunks (HTTP/1.1 without a length), or as it
        /// is (HTTP/1.0, whose end is the connection's); nil otherwise. A live stream writes its
        /// events below the encoder, framed so (`LiveWindowStream`).
        private(set) var bodyFraming: BodyFraming?

        enum BodyFraming {
            case chunked
            case asIs
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(var head) = unwrapInboundIn(data) else {
                context.fireChannelRead(data)
                return
            }
            versions.append((head.version, head.method == .HEAD))
            if head.version < .http1_1 {
                head.headers.replaceOrAdd(name: "connection", value: "close")
                // An HTTP/1.0 client takes no 1xx: its expectation is ignored (RFC 9110 §10.1.1).
                head.headers.remove(name: "expect")
                context.fireChannelRead(wrapInboundOut(.head(head)))
                return
            }
            context.fireChannelRead(data)
        }

        /// The client closed its side of the connection. It may have gone (`curl --max-time`, a
        /// process killed: its kernel sends the same end) or only half-closed it after sending
        /// its request, and still read the answer (Hummingbird allows that). An HTTP/1.1
        /// request whose response has not started is sent an interim `100 Continue`, which a
        /// client must take and pass over (RFC 9110 §15.2): to a client that has gone, its
        /// kernel answers with a reset, which closes the connection, and the request's work is
        /// cancelled (`KeptHTTP1Channel`) instead of holding database connections for no one
        /// (hostile round 10: 200 departed clients made a fresh GET wait 24 s). A half-closed
        /// client reads it and then its answer. Not to an HTTP/1.0 client, which takes no 1xx:
        /// its request runs to its end.
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? ChannelEvent, event == .inputClosed, !responding,
                let waiting = versions.first, !(waiting.version < .http1_1)
            {
                context.writeAndFlush(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let part = unwrapOutboundIn(data)
            if case .end = part {
                bodyFraming = nil
                responding = false
            }
            if case .head(let head) = part, head.status.code >= 200 { responding = true }
            guard case .head(var head) = part, head.status.code >= 200, !versions.isEmpty else {
                context.write(data, promise: promise)
                return
            }
            let (version, isHead) = versions.removeFirst()
            guard version < .http1_1 else {
                bodyFraming = isHead ? nil : Self.framing(of: head)
                context.write(data, promise: promise)
                return
            }
            head.version = .http1_0
            head.headers.replaceOrAdd(name: "connection", value: "close")
            bodyFraming = isHead ? nil : Self.framing(of: head)
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        }

        /// How NIOHTTP1's encoder (framing headers set automatically, as Hummingbird has it)
        /// frames the body after `head` (`bodyFraming`): chunked on HTTP/1.1 and as it is on
        /// HTTP/1.0 when the head gives no length; a head with a length, a status without a body
        /// and an answer to HEAD (no body at all) are nil.
        private static func framing(of head: HTTPResponseHead) -> BodyFraming? {
            guard head.status != .noContent, head.status != .notModified, !head.headers.contains(name: "content-length")
            else { return nil }
            return head.version < .http1_1 ? .asIs : .chunked
        }
    }

    extension HTTPVersion {
        fileprivate static func < (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
            (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
        }
    }
#endif
