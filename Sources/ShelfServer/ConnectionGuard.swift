#if Server
    internal import HTTPTypes
    internal import NIOCore
    internal import NIOHTTP1
    internal import NIOHTTPTypes

    /// One per connection, between the HTTP decoder and the request handling: the limits a
    /// connection meets before and after its requests, which Hummingbird does not set.
    ///
    /// - A request's head must arrive within `headerTimeout` of the connection opening, or of
    ///   the previous response ending: a client that never finishes its headers or sends them a
    ///   byte at a time is answered 408 and closed; one that opens a connection and sends
    ///   nothing is closed without a word, so idle and half-open connections cost nothing for
    ///   long. (Their size is the HTTP decoder's limit, `ShelfServer.maximumHeaderBytes`.) A
    ///   head begun in the same read as the previous request's end (pipelined) counts as
    ///   nothing sent: the bytes are counted before the decoder (`InboundByteCount`).
    /// - A request's body must arrive whole within `bodyTimeout` of its head: a client that
    ///   trickles a body is answered 408 with `Connection: close` if its response has not started
    ///   (then lingers as below), else the connection is closed. The request's handler, waiting
    ///   on the body, sees it end in that 408 `Problem` (never a short body read as whole), so
    ///   nothing of it is stored and the handler's task ends with the connection. Once the
    ///   server shuts down (SIGTERM), a body still arriving gets at most `shutdownBodyGrace`
    ///   more, then the same end as a 503: shutdown does not wait out `bodyTimeout`.
    /// - A response that ends before its request's body has arrived whole (a 413 for a body over
    ///   the limit, a 401 sent before the body is read) says `Connection: close`; once it is
    ///   written the server stops sending and discards what still comes of the body for at most
    ///   `lingerBytes` and `lingerTime` (so that a client still uploading reads the answer
    ///   instead of a reset), then closes. Hummingbird would read the rest, however long, to
    ///   reach the next request.
    ///
    /// - A connection whose client takes nothing of what is sent to it for `sendTimeout` (the
    ///   channel stays unwritable: the socket's buffers and NIO's high-water mark are full, and
    ///   the client's TCP acknowledged no byte meanwhile) is closed (`ConnectionGuard+Stall`).
    ///   A client that reads slowly but steadily is not: the socket's buffers can hold
    ///   megabytes, which such a client takes longer than `sendTimeout` to drain. A live stream waits on the channel's writability before it writes the next
    ///   window (the newest, others are coalesced away), so a client that does not read holds at
    ///   most those buffers and one window, and only for `sendTimeout`; other streams never wait
    ///   on it.
    ///
    /// - A request with `Expect: 100-continue` (RFC 9110 §10.1.1) that arrives between answers
    ///   is sent `100 Continue` at once when it has a body to send; one whose `Content-Length`
    ///   is over `ShelfAPI.maximumBodyBytes` is answered 413 at once instead, its body not read;
    ///   any other expectation is a 417. Both refusals say `Connection: close` and linger as
    ///   above; the handlers above never see the request. (Hummingbird 2 and NIO's HTTP/1
    ///   pipeline do not answer `Expect`: only `NIOHTTPObjectAggregator`, which gathers whole
    ///   bodies, does. An HTTP/1.0 request's `Expect` is dropped by `HTTP10Framing`.)
    ///
    /// - A request NIO's parser cannot read: when its body was cut short (the client closed its
    ///   side before the announced length), the handler reading the body gets a 400 `Problem`
    ///   that says how many of the announced bytes arrived; when its head was (cut short, or not
    ///   HTTP), this handler answers the 400 problem itself, `Connection: close`, since no
    ///   handler above has a request to answer (Hummingbird would send a bare 400).
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
        private let headerSeconds: Int64
        /// The bytes the connection has read (counted before the decoder), and their count when
        /// the last request's end was read: more than that when the header deadline passes is a
        /// head begun and not ended.
        private let received = InboundByteCount()
        private var receivedAtRequestEnd = 0
        let sendTimeout: TimeAmount
        /// When the connection closes unless a request's head arrived: nil while a request is
        /// being answered. The two deadlines move once or twice per request; their timers are
        /// not moved with them (a scheduled task costs an allocation, and its cancellation a
        /// search of the event loop's timer queue, which under `wrk` was a visible share of the
        /// server's CPU, issue 24): a timer that fires before its deadline sets itself again
        /// for it, and one that finds no deadline ends.
        private var headerDue: NIODeadline?
        private var headerTimer: Scheduled<Void>?
        var stalled: Scheduled<Void>?
        /// True while the acknowledged count that starts a stall's timer is being read.
        var stallStarting = false
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
        /// The deadline of the body arriving, from a request's head to its end (else nil), and
        /// its timer (set again as `headerTimer` is).
        private var bodyDue: NIODeadline?
        private var bodyTimer: Scheduled<Void>?
        /// The body's deadline is the shutdown's grace (`shutdownBodyGrace`), not `bodyTimeout`.
        private var bodyShutdown = false
        /// The longest a body still arriving when the server starts shutting down is waited for.
        static let shutdownBodyGrace = TimeAmount.seconds(2)
        /// True once a request's head has arrived on this connection.
        private var requested = false
        /// True once the server is shutting down (`ChannelShouldQuiesceEvent` seen).
        private var quiescing = false
        /// The end of the wait for the first request of a connection told to shut down before it
        /// came; nil when there is no such wait.
        private var firstRequestEnd: Scheduled<Void>?
        /// True once the shutdown held back for the first request was passed on.
        private var quiesceReleased = false
        /// The longest a connection on which no request has arrived yet is kept open once the
        /// server starts shutting down: its client connected before the shutdown began and may
        /// have sent its request already (it is being read); that request is answered.
        /// 10 s: with 2 s, then with 5 s, a loaded CI machine now and then reset one or two of 500
        /// connections whose request was sent but not yet read (`ShutdownStormTests`, load about
        /// 30). Only a connection that has sent nothing waits it out.
        static let shutdownFirstRequestGrace = TimeAmount.seconds(10)
        /// True from a response's head to its end.
        private var responding = false
        /// The 408 once the body deadline passed: from then on, what is written from above is
        /// dropped (the 408, or the connection's end, was the answer), and the request's handler
        /// gets it as the error ending its body.
        private var timedOut: Problem?
        /// True once `timedOut` was passed on to the handler.
        private var timeoutDelivered = false
        private var lingerEnd: Scheduled<Void>?
        /// The most body bytes discarded after such a response.
        static let lingerBytes = 8 << 20
        /// The longest a connection stays open after such a response.
        static let lingerTime = TimeAmount.seconds(5)

        private let bodyTimeout: TimeAmount
        private let bodySeconds: Int64
        /// True once this handler answered a request that the handlers above never saw (an
        /// expectation refused, a head that could not be read): what they write after it is
        /// dropped, and the parser's further complaints are that answer's.
        private var answeredAlone = false
        /// The `Content-Length` of the request whose body is arriving, and its bytes so far.
        private var announcedLength: Int?
        private var arrivedBytes = 0

        /// Where the guard's own answers are logged and counted, as the routes' are.
        private let accessLog: GuardAccessLog?

        init(headerTimeout: Duration, bodyTimeout: Duration, sendTimeout: Duration, accessLog: GuardAccessLog? = nil) {
            self.accessLog = accessLog
            self.headerTimeout = .nanoseconds(ShelfServer.nanoseconds(headerTimeout))
            self.headerSeconds = headerTimeout.components.seconds
            self.bodyTimeout = .nanoseconds(ShelfServer.nanoseconds(bodyTimeout))
            self.bodySeconds = bodyTimeout.components.seconds
            self.sendTimeout = .nanoseconds(ShelfServer.nanoseconds(sendTimeout))
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if context.channel.isWritable {
                stalled?.cancel()
                stalled = nil
            } else if stalled == nil, !stallStarting {
                stallBegan(context)
            }
            context.fireChannelWritabilityChanged()
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive { armDeadline(context) }
            // HTTP/1.0 framing and the Host check need the request's version (and the Host check
            // every Host field), which only handlers next to NIOHTTP1's decoder see.
            let pipeline = context.pipeline.syncOperations
            if let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                try? pipeline.addHandler(received, position: .before(decoder))
                let framing = HTTP10Framing()
                try? pipeline.addHandler(framing, position: .after(decoder))
                try? pipeline.addHandler(HostFieldCheck(), position: .after(framing))
            }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            cancelTimers()
        }

        private func cancelTimers() {
            for timer in [headerTimer, stalled, bodyTimer, lingerEnd, firstRequestEnd] { timer?.cancel() }
            (headerTimer, stalled, bodyTimer, lingerEnd, firstRequestEnd) = (nil, nil, nil, nil, nil)
            (headerDue, bodyDue) = (nil, nil)
            bodyShutdown = false
        }

        func channelActive(context: ChannelHandlerContext) {
            armDeadline(context)
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            cancelTimers()
            // Before the inactive channel ends the handler's body as if it were whole.
            deliverTimeout(context)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // After the 408, the decoder's complaint about the body cut short is that same 408.
            if timedOut != nil {
                deliverTimeout(context)
                return
            }
            if answeredAlone { return }
            if let unreadable = error as? HTTPParserError, !lingering {
                // A body cut short: the handler reading it learns what arrived (its error).
                if bodyArriving {
                    context.fireErrorCaught(cutBody(unreadable))
                    return
                }
                // A head: no handler has a request to answer, and Hummingbird's answer is a bare
                // 400. Only between answers; in the middle of one, the connection just ends.
                if unanswered == 0, !responding {
                    answerAlone(Self.unreadableHead(unreadable), context, request: nil)
                    return
                }
            }
            context.fireErrorCaught(error)
        }

        /// The 400 for a body NIO's parser could not read whole, with how much of it arrived.
        private func cutBody(_ error: HTTPParserError) -> Problem {
            let arrived =
                switch (announcedLength, error) {
                case (let announced?, .invalidEOFState):
                    "the request's body was cut short: \(arrivedBytes) of the \(announced) bytes its Content-Length "
                        + "announced arrived before the client closed its side of the connection"
                case (nil, .invalidEOFState):
                    "the request's body was cut short: the client closed its side of the connection after "
                        + "\(arrivedBytes) bytes, before the chunked body's last chunk"
                default:
                    "the request's body could not be read (\(error)) after \(arrivedBytes) bytes of it"
                }
            return Problem(.badRequest, arrived + "; nothing was stored: send the whole request again")
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if streaming, let event = event as? ChannelEvent, event == .inputClosed {
                context.close(promise: nil)
            }
            // Shutdown on a connection whose first request has not been read yet: Hummingbird
            // would close it at once, and its client, which has sent (or is sending) its request,
            // would get nothing. The event waits for that request (`channelRead` passes it on
            // right after the head), or for `shutdownFirstRequestGrace`.
            if event is ChannelShouldQuiesceEvent, !requested, !quiescing {
                quiescing = true
                let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                firstRequestEnd = context.eventLoop.scheduleTask(in: Self.shutdownFirstRequestGrace) {
                    let (this, context) = handler.value
                    this.firstRequestEnd = nil
                    this.releaseQuiesce(context)
                }
                return
            }
            if event is ChannelShouldQuiesceEvent { quiescing = true }
            // Shutdown: Hummingbird waits for requests in progress, so a body still arriving is
            // given `shutdownBodyGrace` more, not what is left of `bodyTimeout`.
            if event is ChannelShouldQuiesceEvent, bodyArriving, !lingering, timedOut == nil {
                let grace = NIODeadline.now() + Self.shutdownBodyGrace
                // Unless its deadline comes sooner anyway.
                if bodyDue.map({ $0 > grace }) ?? true {
                    bodyDue = grace
                    bodyShutdown = true
                    bodyTimer?.cancel()
                    setBodyTimer(context, at: grace)
                }
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
            case .head(let request):
                requested = true
                headerDue = nil
                // Only between answers: an answer of this handler's own in the middle of another
                // would break both (a client that sends `Expect` waits for its answers in turn).
                if unanswered == 0 {
                    switch Self.expectation(of: request) {
                    case .refuse(let problem):
                        answerAlone(problem, context, request: request)
                        return
                    case .proceed:
                        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
                    case .none: break
                    }
                }
                unanswered += 1
                bodyArriving = true
                announcedLength = request.headerFields[.contentLength].flatMap { Int($0) }
                arrivedBytes = 0
                let due = NIODeadline.now() + bodyTimeout
                bodyDue = due
                if bodyTimer == nil { setBodyTimer(context, at: due) }
            case .body(let buffer): arrivedBytes += buffer.readableBytes
            case .end:
                bodyArriving = false
                bodyDue = nil
                bodyShutdown = false
                receivedAtRequestEnd = received.total
            }
            context.fireChannelRead(data)
            // The first request of a connection that was told to shut down before it came: now
            // in progress, it is answered (with `Connection: close`), then the connection closes.
            if case .head = part, firstRequestEnd != nil {
                firstRequestEnd?.cancel()
                firstRequestEnd = nil
                releaseQuiesce(context)
            }
        }

        /// Passes on the shutdown held back for a connection's first request (once).
        private func releaseQuiesce(_ context: ChannelHandlerContext) {
            guard !quiesceReleased else { return }
            quiesceReleased = true
            userInboundEventTriggered(context: context, event: ChannelShouldQuiesceEvent())
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if timedOut != nil || answeredAlone {
                promise?.fail(ChannelError.ioOnClosedChannel)
                return
            }
            switch unwrapOutboundIn(data) {
            case .head(var head) where head.status.kind != .informational:
                responding = true
                streaming = head.headerFields[.contentType]?.hasPrefix("text/event-stream") == true
                // Shutting down: the connection closes after this response; the client is told.
                if quiescing, !streaming, head.headerFields[.connection] == nil {
                    head.headerFields[.connection] = "close"
                    if !bodyArriving {
                        context.write(wrapOutboundOut(.head(head)), promise: promise)
                        return
                    }
                }
                guard bodyArriving else { break }
                closing = true
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            case .head, .body: break
            case .end:
                streaming = false
                responding = false
                unanswered = max(0, unanswered - 1)
                if closing {
                    let written = promise ?? context.eventLoop.makePromise()
                    linger(context, after: written.futureResult)
                    context.write(data, promise: written)
                    return
                }
                if unanswered == 0 { armDeadline(context) }
            }
            context.write(data, promise: promise)
        }

        /// Discards what still comes from the client and, once `written` completes, closes the
        /// connection's output, then the connection after `lingerTime`.
        private func linger(_ context: ChannelHandlerContext, after written: EventLoopFuture<Void>) {
            lingering = true
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let channel = context.channel
            written.whenComplete { _ in
                channel.close(mode: .output, promise: nil)
                handler.value.lingerEnd = channel.eventLoop.scheduleTask(in: Self.lingerTime) {
                    channel.close(promise: nil)
                }
            }
        }

        /// The body deadline passed with the body still arriving: a 408 (a 503 when the server is
        /// shutting down, `bodyShutdown`) if the response has not started (then linger), else
        /// the connection closes.
        private func bodyTimedOut(_ context: ChannelHandlerContext) {
            bodyDue = nil
            let shuttingDown = bodyShutdown
            bodyShutdown = false
            guard bodyArriving, !lingering, timedOut == nil else { return }
            let problem =
                shuttingDown
                ? Problem(
                    .serviceUnavailable,
                    "the server is shutting down, and the request's body had not arrived whole "
                        + "\(Self.shutdownBodyGrace.nanoseconds / 1_000_000_000) s after that began; nothing of it "
                        + "was stored: send the request again, its body at once, when the server is back")
                : Problem(
                    .requestTimeout,
                    "the request's body did not arrive whole within \(bodySeconds) s of its headers (--body-timeout); "
                        + "nothing of it was stored: send the request again, its body at once")
            timedOut = problem
            guard !responding else {
                context.close(promise: nil)
                return
            }
            writeProblem(problem, context)
        }

        /// The header deadline passed: a head begun is answered 408 (then lingers); a connection
        /// that sent nothing since its last request is closed.
        private func headerTimedOut(_ context: ChannelHandlerContext) {
            guard received.total > receivedAtRequestEnd, unanswered == 0, !responding, !lingering else {
                context.channel.close(promise: nil)
                return
            }
            answerAlone(
                Problem(
                    .requestTimeout,
                    "the request's head did not arrive whole within \(headerSeconds) s (--header-timeout): "
                        + "\(received.total - receivedAtRequestEnd) bytes came, without the blank line that ends the "
                        + "header fields; nothing was stored: send the whole request again, at once"),
                context, request: nil)
        }

        /// Answers `problem` for a request the handlers above never saw (they write nothing more
        /// on this connection), then lingers and closes.
        private func answerAlone(_ problem: Problem, _ context: ChannelHandlerContext, request: HTTPRequest?) {
            accessLog?.record(request, status: problem.status.code)
            answeredAlone = true
            bodyArriving = false
            (bodyDue, headerDue) = (nil, nil)
            writeProblem(problem, context)
        }

        /// Writes `problem` as the whole response, `Connection: close`, then lingers.
        private func writeProblem(_ problem: Problem, _ context: ChannelHandlerContext) {
            var fields = problem.headers
            fields[.contentType] = "application/problem+json"
            fields[.connection] = "close"
            let body = ByteBuffer(bytes: problem.encoded())
            fields[.contentLength] = String(body.readableBytes)
            context.write(
                wrapOutboundOut(.head(HTTPResponse(status: problem.status, headerFields: fields))), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
            linger(context, after: written.futureResult)
        }

        /// Ends the handler's body in the 408, once.
        private func deliverTimeout(_ context: ChannelHandlerContext) {
            guard let timedOut, !timeoutDelivered else { return }
            timeoutDelivered = true
            context.fireErrorCaught(timedOut)
        }

        /// Closes the connection unless a request's head arrives within `headerTimeout`.
        private func armDeadline(_ context: ChannelHandlerContext) {
            let due = NIODeadline.now() + headerTimeout
            headerDue = due
            if headerTimer == nil { setHeaderTimer(context, at: due) }
        }

        private func setHeaderTimer(_ context: ChannelHandlerContext, at due: NIODeadline) {
            let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            headerTimer = context.eventLoop.scheduleTask(deadline: due) {
                let (this, context) = handler.value
                this.headerTimer = nil
                guard let due = this.headerDue else { return }  // a request came; it arms the next
                if due > .now() {
                    this.setHeaderTimer(context, at: due)
                } else {
                    this.headerTimedOut(context)
                }
            }
        }

        private func setBodyTimer(_ context: ChannelHandlerContext, at due: NIODeadline) {
            let handler = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            bodyTimer = context.eventLoop.scheduleTask(deadline: due) {
                let (this, context) = handler.value
                this.bodyTimer = nil
                guard let due = this.bodyDue else { return }  // the body arrived whole
                if due > .now() {
                    this.setBodyTimer(context, at: due)
                } else {
                    this.bodyTimedOut(context)
                }
            }
        }
    }
#endif
