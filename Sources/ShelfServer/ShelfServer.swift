#if Server
    internal import Foundation
    internal import HTTPTypes
    internal import Hummingbird
    internal import HummingbirdCore
    public import Logging
    internal import NIOCore
    internal import ServiceLifecycle
    public import ShelfStore
    internal import Synchronization

    /// `shelf serve`: Shelf's routes (`ShelfAPI`) in a Hummingbird application of their own,
    /// on one address, until the task running it is cancelled; then it stops accepting, ends
    /// open live streams, and returns once the open requests are answered.
    public struct ShelfServer: Sendable {
        /// Where and how to serve.
        public struct Configuration: Sendable {
            /// The address to listen on; `127.0.0.1` by default.
            public var host: String
            /// The port; 0 picks a free one.
            public var port: Int
            /// An origin (`https://app.example.com`) whose pages may call the API (CORS), or nil.
            public var corsOrigin: String?
            /// The routes' options.
            public var options: ShelfAPI.Options
            /// How long a connection may take to send a request's head, counted from its opening
            /// or from the end of its previous response; then it is closed. This bounds what a
            /// client that never finishes its headers, or opens connections and sends nothing,
            /// holds. Default 10 s.
            public var headerTimeout: Duration
            /// How long a request's body may take to arrive whole, counted from its head's arrival.
            /// A body still arriving then is answered 408 (`Connection: close`) if its response has
            /// not started, and the connection closes; the request's handler sees its body end in
            /// an error, so nothing of it is stored. This bounds what a client that trickles a body
            /// holds. Default 30 s.
            public var bodyTimeout: Duration
            /// How long a connection may stay without reading or writing anything before it is
            /// closed (a live stream writes a keep-alive comment well within it). Default 60 s.
            public var idleTimeout: Duration
            /// How long a connection may take nothing of what is sent to it (its client not reading)
            /// before it is closed. Default 30 s.
            public var sendTimeout: Duration

            /// A configuration; each argument left out has its default.
            public init(
                host: String = "127.0.0.1", port: Int = 8080, corsOrigin: String? = nil,
                options: ShelfAPI.Options = .init(), headerTimeout: Duration = .seconds(10),
                bodyTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60),
                sendTimeout: Duration = .seconds(30)
            ) {
                self.host = host
                self.port = port
                self.corsOrigin = corsOrigin
                self.options = options
                self.headerTimeout = headerTimeout
                self.bodyTimeout = bodyTimeout
                self.idleTimeout = idleTimeout
                self.sendTimeout = sendTimeout
            }
        }

        /// The store served.
        public let store: Store
        /// Where and how.
        public let configuration: Configuration
        let logger: Logger

        /// A server of `store`.
        public init(store: Store, configuration: Configuration, logger: Logger = Logger(label: "shelf.http")) {
            self.store = store
            self.configuration = configuration
            self.logger = logger
        }

        /// Serves until the calling task is cancelled, then shuts down gracefully: no new
        /// connection is accepted, live streams end, and open requests are answered before it
        /// returns. `onListening` is called once with the address bound (the port picked, for
        /// port 0).
        /// - Throws: when the address cannot be bound, or the server fails.
        public func run(onListening: @escaping @Sendable (_ host: String, _ port: Int) async -> Void) async throws {
            let router = Router(context: ConnectionContext.self)
            router.add(middleware: ProblemMiddleware())
            router.add(middleware: HostFieldGuard())
            router.add(
                middleware: RequestOriginGuard(
                    store: store, loopback: Self.isLoopback(configuration.host), corsOrigin: configuration.corsOrigin))
            if let origin = configuration.corsOrigin {
                router.add(
                    middleware: CORSMiddleware(
                        allowOrigin: .oneOf(origin),
                        allowHeaders: [
                            .accept, .authorization, .contentType, .origin, .ifMatch, HTTPField.Name("Last-Event-ID")!,
                        ],
                        allowMethods: [.get, .head, .post, .patch, .delete, .options],
                        exposedHeaders: ["ETag", "Location"]))
                // Hummingbird's CORS middleware names exposed headers on preflights only; a
                // browser reads them from the actual response.
                router.add(middleware: ExposedHeadersMiddleware(origin: origin))
            }
            let host = configuration.host
            var options = configuration.options
            // Reachable from other machines: a token is needed even once the last is revoked.
            if !Self.isLoopback(host) { options.requireToken = true }
            let api = ShelfAPI(store: store, options: options, logger: logger)
            api.addRoutes(to: router)
            let accessLog = GuardAccessLog(logger: logger, metrics: api.metrics)
            let (headerTimeout, bodyTimeout) = (configuration.headerTimeout, configuration.bodyTimeout)
            let sendTimeout = configuration.sendTimeout
            let http = HTTP1Channel.Configuration(
                additionalChannelHandlers: [
                    ConnectionGuard(
                        headerTimeout: headerTimeout, bodyTimeout: bodyTimeout, sendTimeout: sendTimeout,
                        accessLog: accessLog)
                ],
                idleTimeout: .nanoseconds(Self.nanoseconds(configuration.idleTimeout)),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: Self.maximumHeaderBytes, maxHeaderListSize: Self.maximumHeaderBytes,
                    maxHeaderFieldCount: Self.maximumHeaderFields))
            let listener = ListeningChannel()
            let app = Application(
                router: router,
                // Accepted connections kept until handled or closed (`KeptHTTP1Channel`).
                server: HTTPServerBuilder { responder in
                    KeptHTTP1Channel(inner: HTTP1Channel(responder: responder, configuration: http))
                },
                configuration: .init(
                    address: .hostname(host, port: configuration.port), serverName: nil, backlog: Self.listenBacklog),
                onServerRunning: { channel in
                    listener.channel.withLock { $0 = channel }
                    await onListening(host, channel.localAddress?.port ?? 0)
                },
                logger: logger)
            let group = ServiceGroup(
                configuration: .init(
                    services: [app], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger))
            // The caller's cancellation (a signal, in `shelf serve`) is a graceful shutdown, not
            // ServiceGroup's own reading of it (cancel every service at once).
            let running = Task { try await group.run() }
            try await withTaskCancellationHandler {
                try await running.value
            } onCancel: {
                let logger = logger
                Task {
                    if let channel = listener.channel.withLock({ $0 }) {
                        await Self.acceptWaiting(
                            on: channel, within: Self.acceptDrainLimit, stalling: Self.acceptDrainStall, logger: logger)
                    }
                    await group.triggerGracefulShutdown()
                }
            }
        }

        /// The server's listening channel, once it listens.
        final class ListeningChannel: Sendable {
            let channel = Mutex<(any Channel)?>(nil)
        }

        /// How many connections the kernel completes and queues for the server to accept
        /// (`listen`'s backlog; Linux caps it at `net.core.somaxconn`, 4096 by default).
        /// Hummingbird's default, 256, overflowed under a burst of 500 on a loaded machine: the
        /// connections past it, whose clients had connected and sent their requests, waited
        /// half-open where `acceptWaiting` cannot count them, and were reset when the listening
        /// socket closed at SIGTERM (62 of 500 in CI, `ShutdownStormTests`).
        static let listenBacklog = 4096

        /// The longest shutdown waits for the connections waiting to be accepted (`acceptWaiting`).
        static let acceptDrainLimit: Duration = .seconds(10)
        /// The longest it waits while none of them is taken: 2 s reset 42 of 500 connections in a
        /// full CI run, whose tests starved the server of CPU for longer.
        static let acceptDrainStall: Duration = .seconds(5)

        /// Returns once the connections the kernel has completed on `listener` but the server has
        /// not yet accepted are accepted (their count, `tcp_info`'s `tcpi_unacked` on a listening
        /// socket on Linux, is 0), after `limit`, or once the count has not gone down for
        /// `stalling` (on a loaded machine accepting hundreds takes seconds, but it goes on).
        /// Closing the listening socket resets those connections, whose clients have sent their
        /// requests: accepted, their requests are answered (`ConnectionGuard` waits for a
        /// connection's first request at shutdown). Elsewhere, and when the count cannot be read,
        /// returns at once.
        static func acceptWaiting(
            on listener: any Channel, within limit: Duration, stalling: Duration, logger: Logger
        ) async {
            #if os(Linux)
                guard let socket = listener as? any SocketOptionProvider else { return }
                let end = ContinuousClock.now + limit
                var lowest = UInt32.max
                var progressed = ContinuousClock.now
                while ContinuousClock.now < end, ContinuousClock.now - progressed < stalling {
                    do {
                        let waiting = try await socket.getTCPInfo().get().tcpi_unacked
                        if waiting == 0 { return }
                        if waiting < lowest { (lowest, progressed) = (waiting, .now) }
                    } catch {
                        logger.debug("cannot read the listening socket's accept queue: \(error)")
                        return
                    }
                    // Cancelled: shut down now.
                    guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return }
                }
                logger.debug("connections were still waiting to be accepted when shutdown stopped taking them")
            #endif
        }

        /// Adds `Access-Control-Expose-Headers: ETag, Location` to the answers to `origin`.
        struct ExposedHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
            let origin: String

            func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
                async throws -> Response
            {
                var response = try await next(request, context)
                if request.method != .options, request.headers[.origin] == origin {
                    response.headers[.accessControlExposeHeaders] = "ETag, Location"
                }
                return response
            }
        }

        /// The most bytes a request's head (request line and header fields) may have; a longer
        /// one is a 400 and the connection closes.
        public static let maximumHeaderBytes = 64 << 10
        /// The most header fields a request may have.
        public static let maximumHeaderFields = 100

        static func nanoseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }

        /// True when `host` is a loopback address: a literal IPv4 address in `127.0.0.0/8`
        /// (four decimal parts of 0...255, the first 127), `::1` or `[::1]`, or exactly
        /// `localhost` (letter case ignored). A name that only starts like one
        /// (`127.evil.example`, `127.0.0.1.nip.io`) is not: DNS can point it anywhere.
        public static func isLoopback(_ host: String) -> Bool {
            if host.lowercased() == "localhost" || host == "::1" || host == "[::1]" { return true }
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0] == "127" else { return false }
            return parts.allSatisfy { part in
                (1...3).contains(part.count) && part.allSatisfy { ("0"..."9").contains($0) }
                    && Int(part).map { $0 <= 255 } == true
            }
        }
    }
#endif
