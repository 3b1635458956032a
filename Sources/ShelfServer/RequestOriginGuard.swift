#if Server
    internal import HTTPTypes
    internal import Hummingbird
    internal import ShelfStore

    /// Keeps other sites' pages out of a server: a browser sends any page's requests to any
    /// address, with the user's network position (loopback).
    ///
    /// - Writes (any method but GET, HEAD and OPTIONS) with an `Origin` other than the
    ///   server's own (`http://` + the request's `Host`) or the `--cors` origin are a 403.
    /// - On a loopback server that no token protects (none stored, none sent), a `Host` that is
    ///   not a loopback address (`localhost`, `127.x.x.x`, `[::1]`) is a 403: a page whose name
    ///   was rebound to 127.0.0.1 (DNS rebinding) sends its own name, and must not read the store.
    struct RequestOriginGuard<Context: RequestContext>: RouterMiddleware {
        let store: Store
        /// Whether the server is bound to a loopback address (and so takes requests without a
        /// token while none is stored).
        let loopback: Bool
        let corsOrigin: String?

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            let host = request.head.authority
            if loopback, let host, !ShelfServer.isLoopback(Self.hostname(host)),
                request.headers[.authorization] == nil, try await !store.tokens.hasTokens()
            {
                throw Problem(
                    .forbidden,
                    "Host '\(JSONReader.printable(host))' is not this server's address: a loopback server without "
                        + "tokens answers only to localhost, 127.0.0.1 or [::1], so that a page on another name "
                        + "(DNS rebinding) cannot read it; use one of those, or protect the store with "
                        + "`shelf tokens create`")
            }
            let read = request.method == .get || request.method == .head || request.method == .options
            if !read, let origin = request.headers[.origin], origin != corsOrigin,
                host.map({ origin != "http://" + $0 }) ?? true
            {
                throw Problem(
                    .forbidden,
                    "Origin '\(JSONReader.printable(origin))' may not change this store: only this server's own "
                        + "pages, or the origin given with `shelf serve --cors ORIGIN`, may write")
            }
            return try await next(request, context)
        }

        /// The name or address of a `Host` value, without its port (`[::1]:8080` is `[::1]`).
        static func hostname(_ host: String) -> String {
            if host.hasPrefix("["), let end = host.firstIndex(of: "]") { return String(host[...end]) }
            return String(host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
        }
    }
#endif
