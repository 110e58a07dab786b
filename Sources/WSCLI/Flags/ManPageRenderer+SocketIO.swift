/// The man page's SOCKET.IO section: what --socketio makes of the lines,
/// the connection and the server mode.
extension ManPageRenderer {
    static let socketIO = [
        "--socketio speaks Socket.IO (protocol 5) over Engine.IO v4's WebSocket transport; there is no "
            + "long-polling, so the server must accept WebSocket connections at once (python-socketio, "
            + "socket.io for Node and their ports all do). The URL gets the path /socket.io/ when its path is "
            + "empty or /, and the query EIO=4&transport=websocket; another path is kept, the query added.",
        "Each connection is a new Engine.IO session. Its open packet is read first; then every namespace of "
            + "--namespace (/ when none is given) is connected, each with the --sio-auth object, rendered afresh "
            + "for the connection. Nothing is sent, and the connected event does not come, before all of them "
            + "are; the queue, the --on-connect messages and the messages held for their --ack go out then. A "
            + "namespace refused by the server (a connect_error) ends the run with its message and exit status 4, "
            + "as a handshake the server rejects does. The server's pings are answered at once and never show on "
            + "stdout; one that has not pinged for its pingInterval plus pingTimeout (from the open packet; 45 s "
            + "by default) is dead: the connection is dropped and made again, as --ping-timeout does. --ping-interval "
            + "still sends WebSocket pings of its own.",
        "An incoming event is one JSON line: 42/chat,[\"message\",{\"text\":\"hi\"}] is "
            + "{\"event\":\"message\",\"data\":{\"text\":\"hi\"},\"ns\":\"/chat\"}. One argument is data, several "
            + "are args (an array), none leaves both out; ns is left out for /. An event that asks for an ack "
            + "carries its id: \"ack\":17. An ack that answers one of wspipe's is {\"ack_of\":N,\"data\":...}.",
        "Lines typed or piped in take the same form. An event line (event, with data or args, and ns) is sent "
            + "as its packet; \"ack\":true asks for an ack under the next id (1, 2, 3... for the run), which the "
            + "ack_requested event names with the line, and the answer comes out as {\"ack_of\":N,...}. A line "
            + "without event, with \"ack\":17, answers the event that asked under 17: "
            + "{\"ack\":17,\"data\":{\"ok\":true},\"ns\":\"/chat\"}. Any other line (a member of another name, "
            + "data and args together, an envelope) is rejected with its line and column and counts for exit "
            + "status 6.",
        "Binary data is written {\"$binary\":\"<base64>\"} wherever it sits in data or args, both ways: an "
            + "event with attachments (45-, 46-) is shown once its binary messages are in, and a line holding "
            + "such objects is sent as one, each decoded into an attachment.",
        "The type --route, --answer and --until read is the event's name: --type-key is event unless another "
            + "path is given. So --route said=said.ndjson keeps one event in a file, --until event=done ends the "
            + "run at an event, and --answer 'question={\"ack\":${.ack},\"data\":\"yes\"}' answers the acks a "
            + "server asks for. --capture, --ack, --record and --replay work on the lines too.",
        "An ack asked for is a reply owed: echo '{\"event\":\"join\",\"data\":{\"room\":\"a\"},\"ack\":true}' | "
            + "wspipe --socketio URL prints the answer and closes once it came (see --linger). Socket.IO packets "
            + "are messages, in --stats and in what a drop leaves unconfirmed; Engine.IO's pings and pongs are "
            + "neither lines nor signs of life. A packet written to a connection that dropped before the "
            + "server's TCP acknowledged it goes again, as it was, once the next connection's namespaces are "
            + "connected.",
        "With --listen, wspipe is a Socket.IO server for testing clients: each client gets the open packet "
            + "(with --ping-interval and --ping-timeout as pingInterval and pingTimeout, 25 s and 20 s without "
            + "them), a ping every interval, and is dropped (client_disconnected, 1001) when its pong does not "
            + "come in time. Any namespace is accepted, or only those of --namespace (others get a connect_error); "
            + "each connect makes a namespace_connected event with the client's auth object. The client's events "
            + "and acks are lines on stdout (with --tag, each names its client); stdin lines go to every client "
            + "as packets (a client not in the namespace ignores them); --on-connect and --replay start once a "
            + "client has connected its first namespace, and --relay passes each client's events to the others "
            + "as they came.",
    ]
}
