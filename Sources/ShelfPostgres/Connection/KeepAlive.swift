#if PostgreSQL
    internal import Logging
    internal import PostgresNIO

    #if canImport(Glibc)
        internal import Glibc
    #endif

    /// Connections that notice a network gone silent: TCP keepalive and a user timeout on
    /// their socket.
    ///
    /// Without them, a connection whose network drops without a word (a cable, a VPN, a NAT
    /// that forgot it, a host that froze) waits forever when idle (a `LISTEN`), and about
    /// fifteen minutes (the kernel's retransmissions) when a query is under way. With them,
    /// the kernel probes a silent connection after `idle`, every `interval`, and gives up
    /// after `probes` unanswered probes; data that stays unacknowledged for `userTimeout`
    /// ends it too. Either way the connection fails within `noticedWithin`, and its calls fail
    /// with it (or `CallGuard` ends them). Costs nothing while the connection carries traffic;
    /// idle, one small packet each way per `idle`.
    ///
    /// postgres-nio 1.33 sets no socket option and takes none, so the channel is made here and
    /// handed to it (`Configuration(establishedChannel:)`). The pool (`PostgresClient`) makes
    /// its own connections; `LockWait`'s watcher covers those.
    enum KeepAlive {
        static let idle: Int32 = 10
        static let interval: Int32 = 5
        static let probes: Int32 = 3
        static let userTimeout: Duration = .seconds(20)
        /// The longest a dead network goes unnoticed on such a connection.
        static let noticedWithin: Duration = .seconds(Int64(idle + interval * probes))

        /// Connects as `configuration` says, over a socket with keepalive; a configuration
        /// that is not plain TCP host and port is connected as it is.
        /// - Throws: `KeepAliveConnectError` when the server cannot be reached; what
        ///   `PostgresConnection.connect` throws after that.
        static func connect(configuration: PostgresConnection.Configuration, id: Int, logger: Logger) async throws
            -> PostgresConnection
        {
            guard let host = configuration.host, let port = configuration.port else {
                return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
            }
            let limit = configuration.options.connectTimeout
            let channel: any Channel
            do {
                channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connectTimeout(limit)
                    .channelOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
                    .channelOption(Self.tcp(TCP_KEEPIDLE), value: Int(idle))
                    .channelOption(Self.tcp(TCP_KEEPINTVL), value: Int(interval))
                    .channelOption(Self.tcp(TCP_KEEPCNT), value: Int(probes))
                    .channelOption(Self.tcp(TCP_USER_TIMEOUT), value: Int(userTimeout.components.seconds * 1000))
                    .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                    .connect(host: host, port: port).get()
            } catch {
                throw KeepAliveConnectError(underlying: error)
            }
            var established = PostgresConnection.Configuration(
                establishedChannel: channel, tls: configuration.tls, username: configuration.username,
                password: configuration.password, database: configuration.database)
            established.options = configuration.options
            // The name TLS checks the certificate against: the host, as postgres-nio does for a
            // host and port (not for a channel it is handed).
            if established.options.tlsServerName == nil, !Self.isIPAddress(host) {
                established.options.tlsServerName = host
            }
            do {
                // On the channel's own event loop, as postgres-nio requires of a channel it is handed.
                return try await PostgresConnection.connect(
                    on: channel.eventLoop, configuration: established, id: id, logger: logger)
            } catch let error as PSQLError
                where error.code == .connectionError && !channel.isActive && !Self.timedOut(error)
            {
                // The channel closed before postgres-nio took it (seen under a heavily loaded
                // full test run, cause not found): connect as postgres-nio does, without
                // keepalive on this connection, rather than fail the call. Not when the connect
                // timed out (a server that accepts and answers nothing), which closes the channel
                // too: that was tried again with a whole new timeout, and a `ServerCheck` over a
                // silent network took 20 s, not 10 s.
                logger.debug("keepalive channel closed before use; connecting without keepalive: \(error)")
                try? await channel.close()
                return try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
            } catch {
                try? await channel.close()
                throw error
            }
        }

        /// Whether `error` is postgres-nio's connect timeout (its startup not answered in time).
        private static func timedOut(_ error: PSQLError) -> Bool {
            if case .connectTimeout? = error.underlying as? ChannelError { return true }
            return false
        }

        private static func tcp(_ name: Int32) -> ChannelOptions.Types.SocketOption {
            ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: name))
        }

        private static func isIPAddress(_ host: String) -> Bool {
            var v4 = in_addr()
            var v6 = in6_addr()
            return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
        }
    }

    /// The server could not be reached (no TCP connection); `StoreError(postgres:at:)` says so.
    struct KeepAliveConnectError: Error, CustomStringConvertible {
        let underlying: any Error

        var description: String { "cannot connect: \(underlying)" }
    }
#endif
