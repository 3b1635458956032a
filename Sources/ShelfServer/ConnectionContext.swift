#if Server
    internal import Hummingbird
    internal import HummingbirdCore
    internal import Logging
    internal import NIOCore

    /// The request context `ShelfServer` routes with: Hummingbird's basic one, plus the request's
    /// connection, so that a live stream ends as soon as its client's connection closes
    /// (`LiveMailbox.end(whenClosed:)`) instead of at its next write, up to a keep-alive later.
    /// Routes mounted in another application with another context work as before, and notice
    /// a vanished client at their next write.
    struct ConnectionContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        /// The request's connection.
        let channel: any Channel

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            channel = source.channel
        }
    }

    extension ShelfAPI {
        /// The connection of a request routed with `ConnectionContext`; nil for another context.
        static func connection<Context: RequestContext>(of context: Context) -> (any Channel)? {
            (context as? ConnectionContext)?.channel
        }
    }

    extension LiveMailbox {
        /// Ends this mailbox (so the stream writing from it returns) when `connection` closes.
        func end(whenClosed connection: (any Channel)?) {
            connection?.closeFuture.whenComplete { _ in self.end() }
        }
    }
#endif
