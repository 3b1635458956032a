import ArgumentParser
import Foundation
import ShelfStore

#if Server
    import Logging
    import ShelfServer
#endif

/// `shelf serve`: the store as an HTTP service (built with the `Server` trait).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the store over HTTP: a JSON API, live item windows (server-sent events), health and metrics.",
        discussion: """
            Prints `listening on http://HOST:PORT` on standard output once ready. SIGTERM or Ctrl-C \
            stops accepting, ends open streams and exits 0. Each request is logged on standard error. \
            Once a token exists (`shelf tokens create`), every /api request needs one; a token acts \
            for its user: it reads everything, and writes only that user's items and user row \
            (anything else is a 403). \
            Bodies must be sent as Content-Type: application/json (else 415); a write whose Origin \
            is neither this server's nor the --cors origin is a 403; without a token, a loopback \
            server answers only to a loopback Host (localhost, 127.0.0.1, [::1]), against DNS rebinding. \
            Only in a shelf built with the Server trait (`swift build --traits Server`).
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    // The numbers are parsed `.unconditional`: `--port -1` takes -1 as the value (and says
    // the range), where the default strategy reads it as an option and says "Missing value".
    @Option(parsing: .unconditional, help: "The port; 0 picks a free one.")
    var port = 8080

    @Option(
        help: ArgumentHelp(
            "An origin whose pages may call the API (CORS), as https://app.example.com.", valueName: "origin"))
    var cors: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds between keep-alive comments on an idle live stream.", valueName: "seconds"))
    var keepAlive = 15

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds a connection may take to send a request's headers (from its opening or its previous "
                + "response); then it is closed.", valueName: "seconds"))
    var headerTimeout = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds a request's body may take to arrive whole (from its headers); then it is answered 408 and "
                + "the connection closed, nothing stored.", valueName: "seconds"))
    var bodyTimeout = 30

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds a connection may stay without reading or writing before it is closed.", valueName: "seconds"))
    var idleTimeout = 60

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds a connection may take nothing of what is sent to it (a client not reading) before it is closed.",
            valueName: "seconds"))
    var sendTimeout = 30

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard (1...3_600).contains(keepAlive) else { throw ValidationError("--keep-alive must be 1 to 3600 seconds") }
        guard (1...3_600).contains(headerTimeout) else {
            throw ValidationError("--header-timeout must be 1 to 3600 seconds")
        }
        guard (1...3_600).contains(bodyTimeout) else {
            throw ValidationError("--body-timeout must be 1 to 3600 seconds")
        }
        guard (1...86_400).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout must be 1 to 86400 seconds")
        }
        guard (1...3_600).contains(sendTimeout) else {
            throw ValidationError("--send-timeout must be 1 to 3600 seconds")
        }
        if let cors, !(cors.hasPrefix("http://") || cors.hasPrefix("https://")) || cors.hasSuffix("/") {
            throw ValidationError("--cors takes an origin such as https://app.example.com (scheme and host, no path)")
        }
    }

    func run() async throws {
        #if Server
            let store = try await database.openStore()
            if !ShelfServer.isLoopback(host), try await !store.tokens.hasTokens() {
                throw CommandError(
                    "refusing to listen on \(host) with no API token: anyone who reaches it could read and change "
                        + "the store; create one with `shelf tokens create --user EMAIL`, or listen on 127.0.0.1")
            }
            var logger = Logger(label: "shelf.http") { StandardErrorLogHandler(label: $0) }
            logger.logLevel = .info
            let server = ShelfServer(
                store: store,
                configuration: .init(
                    host: host, port: port, corsOrigin: cors, options: .init(keepAlive: .seconds(keepAlive)),
                    headerTimeout: .seconds(headerTimeout), bodyTimeout: .seconds(bodyTimeout),
                    idleTimeout: .seconds(idleTimeout),
                    sendTimeout: .seconds(sendTimeout)),
                logger: logger)
            do {
                try await server.run { host, port in
                    do {
                        try printLine("listening on http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
                    } catch {
                        printError("Error: cannot print the address: \(error)")
                    }
                }
            } catch is CancellationError {
            } catch  where "\(error)".contains("Address already in use") {
                throw CommandError(
                    "cannot listen on \(host):\(port): the address is in use; stop what uses it or pick another --port (0 picks a free one)"
                )
            }
            // Stopped by a signal, the server shut down cleanly: that is success.
            if Task.isCancelled { SignalRelay.shared.workIsFinal() }
        #else
            throw CommandError(Self.notBuilt("serve"))
        #endif
    }

    /// What a shelf built without the Server trait says when asked for `command` (`serve`,
    /// `tokens list`, …): how to build it with the trait, then to run that same command again.
    static func notBuilt(_ command: String) -> String {
        "this shelf was built without the HTTP server, which `shelf \(command)` needs; build it with the Server "
            + "trait: `swift build --traits Server` (`--traits PostgreSQL,Server` for both), "
            + "then run `.build/debug/shelf \(command)` again"
    }
}
