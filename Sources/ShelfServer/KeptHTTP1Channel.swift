#if Server
    internal import HummingbirdCore
    internal import Logging
    internal import NIOCore
    internal import NIOHTTPTypes
    internal import Synchronization

    /// Hummingbird's HTTP/1 child channel, with every accepted connection kept until it is
    /// either handled or closed.
    ///
    /// NIO hands accepted connections to the server's accept loop through an async sequence. A
    /// connection accepted as the listening channel closes (at shutdown) can be dropped by that
    /// sequence before the loop takes it (swift-nio issue 2813): its `NIOAsyncChannel` is then
    /// released with its writer unfinished, and NIO stops the process ("Deinited NIOAsyncWriter
    /// without calling finish()"; seen once in 16 SIGTERMs into 500 connections, and in
    /// `ShutdownStormTests` under load). Here the accept loop gets an `AcceptedConnection`
    /// instead, whose deinit knows whether the loop took it: one dropped unhandled closes its
    /// channel, which finishes the writer, and keeps the `NIOAsyncChannel` alive until the close
    /// has completed.
    struct KeptHTTP1Channel: ServerChildChannel {
        typealias Value = AcceptedConnection

        let inner: HTTP1Channel

        func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<AcceptedConnection> {
            inner.setup(channel: channel, logger: logger).map { AcceptedConnection($0) }
        }

        /// Handles the connection until it ends. Once the connection has closed (its client
        /// gone: a reset, a failed write, the reset `HTTP10Framing`'s probe draws), the request
        /// being handled is cancelled: its database calls end at once (a queued one leaves the
        /// pool's queue, a running one is cancelled on the server) instead of running for a
        /// client no one will answer. Hummingbird runs a connection's requests in its task and
        /// does not cancel them when the connection closes.
        func handle(value: AcceptedConnection, logger: Logger) async {
            let channel = value.channel
            let connection = value.take()
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await inner.handle(value: connection, logger: logger) }
                // Ends when the channel has closed; a failed close is a close too.
                group.addTask { try? await channel.closeFuture.get() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// One accepted connection on its way to the accept loop (`KeptHTTP1Channel`).
    final class AcceptedConnection: ServerChildChannelValue {
        private let connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
        /// True once the accept loop took the connection (it then finishes the writer itself).
        private let taken = Atomic<Bool>(false)

        init(_ connection: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>) {
            self.connection = connection
        }

        var channel: any Channel { connection.channel }

        /// The connection, for the accept loop to handle.
        func take() -> NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart> {
            taken.store(true, ordering: .releasing)
            return connection
        }

        deinit {
            guard !taken.load(ordering: .acquiring) else { return }
            // Dropped before the accept loop took it. Closing ends the channel's pipeline, and
            // with it the writer (its sink finishes on `channelInactive` or handler removal),
            // after which releasing the connection is safe.
            let kept = connection
            kept.channel.close(promise: nil)
            kept.channel.closeFuture.whenComplete { _ in withExtendedLifetime(kept) {} }
        }
    }
#endif
