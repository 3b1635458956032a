#if Server
    internal import HTTPTypes
    internal import NIOCore
    internal import NIOHTTP1
    internal import NIOHTTPTypes

    /// One per connection, between the HTTP decoder and the request handling: the limits a
    /// connection meets before and after its requests, which Hummingbird does not set.
    ///
    /// - A request's head must arrive within `headerTimeout` of the connection opening, or of
    ///   the previous response ending: a client that never finishes its headers, sends them a
    ///   byte at a time, or opens a connection and sends nothing is closed, so idle and
    ///   half-open connections cost nothing for long. (Their size is the HTTP decoder's limit,
    ///   `ShelfServer.maximumHeaderBytes`.)
    /// - A response that ends before its request's body has arrived whole (a 413 for a body over
    ///   the limit, a 401 sent before the body is read) says `Connection: close`; once it is
    ///   written the server stops sending and discards what still comes of the body for at most
    ///   `lingerBytes` and `lingerTime` (so that a client still uploading reads the answer
    ///   instead of a reset), then closes. Hummingbird would read the rest, however long, to
    ///   reach the next request.
    ///
    /// - A connection whose client takes nothing of what is sent to it for `sendTimeout` (the
    ///   channel stays unwritable: the socket's buffers and NIO's high-water mark are full) is
    ///   closed. A live stream waits on the channel's writability before it writes the next
    ///   window (the newest, others are coalesced away), so a client that does not read holds at
    ///   most those buffers and one window, and only for `sendTimeout`; other streams never wait
    ///   on it.
    ///
    /// - A client that closes its side of the connection while an event stream is being sent to
    ///   it has gone (an EventSource never half-closes; a killed process's kernel closes it): the
    ///   connection is closed at once, which ends the stream (`LiveMailbox.end(whenClosed:)`) and its
    ///   gauge, instead of at its next keep-alive.
    ///
    /// Runs on the channel's event loop only, as every channel handler does.
    final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        private let headerTimeout: TimeAmount
        private let sendTimeout: TimeAmount
        private var deadline: Scheduled<Void>?
        private var stalled: Scheduled<Void>?
        /// Requests whose head has arrived and whose response has not ended.
        private var unanswered = 0
        /// True from a request's head to the end of its body.
        private var bodyArriving = false
        /// True when the response being written ends the connection.
        private var closing = false
        /// True once that response is written: the rest of the body is discarded, then the
        /// connection closes.
        private var lingering = false
        private var discarded = 0
        /// True from an event stream's response head to its end.
        private var streaming = false
        /// The most body bytes discarded after such a response.
        static let lingerBytes = 8 << 20
        /// The longest a connection stays open after such a response.
        static let lingerTime = TimeAmount.seconds(5)

        init(headerTimeout: Duration, sendTimeout: Duration) {
            self.headerTimeout = .nanoseconds(ShelfServer.nanoseconds(headerTimeout))
            self.sendTimeout = .nanoseconds(ShelfServer.nanoseconds(sendTimeout))
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if context.channel.isWritable {
                stalled?.cancel()
                stalled = nil
            } else if stalled == nil {
                let channel = context.channel
                stalled = context.eventLoop.scheduleTask(in: sendTimeout) { channel.close(promise: nil) }
            }
            context.fireChannelWritabilityChanged()
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { armDeadline(context) }
            // HTTP/1.0 framing needs the request's version, which only handlers next to
            // NIOHTTP1's decoder see.
            let pipeline = context.pipeline.syncOperations
            if let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                try? pipeline.addHandler(HTTP10Framing(), position: .after(decoder))
            }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            deadline?.cancel()
            deadline = nil
            stalled?.cancel()
            stalled = nil
        }

        func channelActive(context: ChannelHandlerContext) {
            armDeadline(context)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            deadline?.cancel()
            deadline = nil
            stalled?.cancel()
            stalled = nil
            context.fireChannelInactive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if streaming, let event = event as? ChannelEvent, event == .inputClosed {
                context.close(promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let part = unwrapInboundIn(data)
            if lingering {
                switch part {
                case .body(let buffer):
                    discarded += buffer.readableBytes
                    if discarded > Self.lingerBytes { context.close(promise: nil) }
                case .head, .end: context.close(promise: nil)
                }
                return
            }
            switch part {
            case .head:
                deadline?.cancel()
                deadline = nil
                unanswered += 1
                bodyArriving = true
            case .body: break
            case .end: bodyArriving = false
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch unwrapOutboundIn(data) {
            case .head(var head) where head.status.kind != .informational:
                streaming = head.headerFields[.contentType]?.hasPrefix("text/event-stream") == true
                guard bodyArriving else { break }
                closing = true
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            case .head, .body: break
            case .end:
                streaming = false
                unanswered = max(0, unanswered - 1)
                if closing {
                    lingering = true
                    let channel = context.channel
                    let written = promise ?? context.eventLoop.makePromise()
                    written.futureResult.whenComplete { _ in
                        channel.close(mode: .output, promise: nil)
                        channel.eventLoop.scheduleTask(in: Self.lingerTime) { channel.close(promise: nil) }
                    }
                    context.write(data, promise: written)
                    return
                }
                if unanswered == 0 { armDeadline(context) }
            }
            context.write(data, promise: promise)
        }

        /// Closes the connection unless a request's head arrives within `headerTimeout`.
        private func armDeadline(_ context: ChannelHandlerContext) {
            deadline?.cancel()
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: headerTimeout) { channel.close(promise: nil) }
        }
    }
#endif
