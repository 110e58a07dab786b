# fish completion for wspipe
# Generated from the flag table by `wspipe --generate fish`; do not edit.
# Install: copy to ~/.config/fish/completions/wspipe.fish.

# wspipe curl, before "--": curl's options instead of wspipe's.
function __wspipe_curl_words
    set -l words (commandline -opc)
    test "$words[2]" = curl; or return 1
    contains -- -- $words; and return 1
    return 0
end

# wspipe curl ... --: wspipe's options, which fish offers as words after "--".
function __wspipe_curl_options
    set -l words (commandline -opc)
    test "$words[2]" = curl; and contains -- -- $words
end

# The [NAME] sections of the default config file and of the -K files given.
function __wspipe_profiles
    set -l files
    if set -q WSPIPE_CONFIG
        test -n "$WSPIPE_CONFIG"; and set files $WSPIPE_CONFIG
    else if test -n "$XDG_CONFIG_HOME"
        set files $XDG_CONFIG_HOME/wspipe/config
    else
        set files $HOME/.config/wspipe/config
    end
    set -l words (commandline -opc)
    for i in (seq (count $words))
        contains -- $words[$i] -K --config; and set -a files $words[(math $i + 1)]
    end
    for file in $files
        test -r "$file"; and sed -n 's/^[[:space:]]*\\[\\([A-Za-z0-9._-]*\\)\\][[:space:]]*$/\\1/p' "$file"
    end
end

# The URL is not a file name.
complete -c wspipe -f
complete -c wspipe -n 'test (count (commandline -opc)) -eq 1' -a curl -d 'Run a curl command copied from the browser'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'H' -l header -r -f -d 'Send this header with the handshake request; repeat for more headers'
complete -c wspipe -n 'not __wspipe_curl_words' -l header-file -r -F -d 'Read handshake headers from FILE, one \'Name: value\' a line (keeps secrets out of ps)'
complete -c wspipe -n 'not __wspipe_curl_words' -l header-command -r -f -d 'Run sh -c COMMAND before every connection attempt and send the \'Name: value\' lines it prints as headers'
complete -c wspipe -n 'not __wspipe_curl_words' -l origin -r -f -d 'Send this Origin header'
complete -c wspipe -n 'not __wspipe_curl_words' -l user-agent -r -f -d 'Send this User-Agent header'
complete -c wspipe -n 'not __wspipe_curl_words' -l protocol -r -f -d 'Offer this subprotocol (Sec-WebSocket-Protocol); repeat to offer several'
complete -c wspipe -n 'not __wspipe_curl_words' -l connect-timeout -r -f -d 'Give up connecting (name lookup, TCP, TLS and handshake) after this long'
complete -c wspipe -n 'not __wspipe_curl_words' -l proxy -r -f -d 'Connect through this proxy: http://[USER:PASSWORD@]HOST[:PORT] (CONNECT), socks5:// or socks5h:// (the proxy resolves the name), \'\' for none; without it the http_proxy, https_proxy and all_proxy variables are read, as curl does'
complete -c wspipe -n 'not __wspipe_curl_words' -l proxy-user -r -f -d 'Authenticate to the proxy as USER with PASSWORD (split at the first colon), in place of any in its URL'
complete -c wspipe -n 'not __wspipe_curl_words' -l proxy-user-file -r -F -d 'Read the proxy\'s USER:PASSWORD from the first line of FILE (keeps the password out of ps)'
complete -c wspipe -n 'not __wspipe_curl_words' -l noproxy -r -f -d 'Connect directly to these comma-separated hosts and domains (with their subdomains), \'*\' for all; replaces no_proxy'
complete -c wspipe -n 'not __wspipe_curl_words' -l unix-socket -r -F -d 'Connect through this Unix-domain socket instead of TCP and any proxy; the URL still gives the Host header, path and scheme'
complete -c wspipe -n 'not __wspipe_curl_words' -l max-message-size -r -f -d 'Close the connection with 1009 when an incoming message is larger than this'
complete -c wspipe -n 'not __wspipe_curl_words' -l compress -d 'Negotiate permessage-deflate compression (RFC 7692), with --listen too; --max-message-size counts the decompressed size'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'L' -l location -d 'Follow redirects (301, 302, 303, 307, 308), as curl -L does'
complete -c wspipe -n 'not __wspipe_curl_words' -l max-redirs -r -f -d 'Follow at most N redirects in one connection attempt'
complete -c wspipe -n 'not __wspipe_curl_words' -l location-downgrade -d 'With -L, follow a redirect from wss:// to ws:// too, which leaves TLS'
complete -c wspipe -n 'not __wspipe_curl_words' -l cookie -r -F -d 'Send cookies: DATA as \'name=value; name2=value2\', or those of a Netscape/curl cookie FILE (curl\'s -b; here -b is --binary)'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'c' -l cookie-jar -r -F -d 'Write the cookies the servers set to FILE, in the Netscape/curl format, and send them on each connection'
complete -c wspipe -n 'not __wspipe_curl_words' -l user -r -f -d 'Send HTTP Basic authorization with this user name and password (curl\'s -u; here -u is --unidirectional)'
complete -c wspipe -n 'not __wspipe_curl_words' -l user-file -r -F -d 'Read USER:PASSWORD for --user from the first line of FILE (keeps it out of ps)'
complete -c wspipe -n 'not __wspipe_curl_words' -s '4' -l ipv4 -d 'Connect over IPv4 only (the server\'s name and the proxy\'s)'
complete -c wspipe -n 'not __wspipe_curl_words' -s '6' -l ipv6 -d 'Connect over IPv6 only (the server\'s name and the proxy\'s)'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'k' -l insecure -d 'Skip TLS certificate and hostname verification'
complete -c wspipe -n 'not __wspipe_curl_words' -l cacert -r -F -d 'Trust the CA certificates in FILE (PEM) instead of the system store'
complete -c wspipe -n 'not __wspipe_curl_words' -l cert -r -F -d 'Certificate (PEM) to present: the client\'s, or the server\'s with --listen'
complete -c wspipe -n 'not __wspipe_curl_words' -l key -r -F -d 'Private key (PEM) for --cert'
complete -c wspipe -n 'not __wspipe_curl_words' -l keylog -r -F -d 'Append the TLS secrets of every connection to FILE in the NSS key log format, which Wireshark reads to decrypt them (as SSLKEYLOGFILE does)'
complete -c wspipe -n 'not __wspipe_curl_words' -s 't' -l text -d 'Raw line mode: each line is a text message and each message a line, no JSON'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'b' -l binary -d 'Raw line mode sending each line as a binary message'
complete -c wspipe -n 'not __wspipe_curl_words' -s '0' -l nul -d 'Separate lines with NUL instead of newline in raw line mode'
complete -c wspipe -n 'not __wspipe_curl_words' -l no-line -d 'Raw mode without lines: all of stdin is one message, and messages are written with no separator'
complete -c wspipe -n 'not __wspipe_curl_words' -l binary-output -r -f -a 'raw base64 drop' -d 'How raw line mode writes incoming binary messages'
complete -c wspipe -n 'not __wspipe_curl_words' -l codec -r -f -a 'msgpack cbor' -d 'Read binary messages as MessagePack or CBOR and write them as JSON lines; send JSON lines as binary messages in it'
complete -c wspipe -n 'not __wspipe_curl_words' -l lenient -d 'Send lines that are not valid JSON as raw text instead of rejecting them'
complete -c wspipe -n 'not __wspipe_curl_words' -l strict -d 'Stop at the first line that is not valid JSON'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'i' -l interactive -d 'Run the interactive line editor even when stdout is not a terminal (the default when stdin and stdout both are)'
complete -c wspipe -n 'not __wspipe_curl_words' -l history-size -r -f -d 'Keep the newest messages of the interactive transcript up to this many bytes, for /find, /show and /resend'
complete -c wspipe -n 'not __wspipe_curl_words' -l no-status-line -d 'Draw no status row under the interactive prompt (WSPIPE_PLAIN=1 does the same)'
complete -c wspipe -n 'not __wspipe_curl_words' -l socketio -d 'Speak Socket.IO (Engine.IO v4 over WebSocket): events and acks are the JSON lines'
complete -c wspipe -n 'not __wspipe_curl_words' -l namespace -r -f -d 'Connect the Socket.IO namespace NS (the client; / unless given) or serve only it (--listen); repeat for more'
complete -c wspipe -n 'not __wspipe_curl_words' -l sio-auth -r -f -d 'Send this object as the auth of every namespace\'s connect, rendered afresh for each connection'
complete -c wspipe -n 'not __wspipe_curl_words' -l type-key -r -f -d 'Read the type that --route matches at this dotted key path of incoming JSON messages'
complete -c wspipe -n 'not __wspipe_curl_words' -l route -r -f -d 'Write messages of type VALUE ($binary, $text, $event, * for the rest) to DEST: stdout, stderr, drop, fd:N, a file, or |COMMAND; repeat for more routes'
complete -c wspipe -n 'not __wspipe_curl_words' -l route-errors -r -f -a 'report ignore' -d 'Whether a failing route destination (full disk, exited command) is reported on stderr'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'n' -l no-close -d 'At stdin EOF keep receiving until the server closes'
complete -c wspipe -n 'not __wspipe_curl_words' -s '1' -l one-message -d 'Exit after one incoming message (same as --max-messages 1)'
complete -c wspipe -n 'not __wspipe_curl_words' -l max-messages -r -f -d 'Exit after N incoming messages'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'u' -l unidirectional -d 'Only send stdin to the socket; ignore incoming messages'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'U' -l unidirectional-reverse -d 'Only write incoming messages to stdout; do not read stdin'
complete -c wspipe -n 'not __wspipe_curl_words' -l close-timeout -r -f -d 'At the end, wait this long for the peer\'s Close'
complete -c wspipe -n 'not __wspipe_curl_words' -l linger -r -f -d 'At stdin EOF, wait up to this long for replies still owed before closing'
complete -c wspipe -n 'not __wspipe_curl_words' -l reply -r -f -d 'Owe each sent message with a value at KEYPATH the incoming message with the same value there: at stdin EOF close as soon as all have come, and exit 1 naming those that did not'
complete -c wspipe -n 'not __wspipe_curl_words' -l reply-match -r -f -d 'With --reply, only an incoming message with VALUE at KEYPATH (and the same --reply value) is the reply'
complete -c wspipe -n 'not __wspipe_curl_words' -l until -r -f -d 'Exit 0 once an incoming message with VALUE at KEYPATH has been written: a check for scripts and CI'
complete -c wspipe -n 'not __wspipe_curl_words' -l idle-timeout -r -f -d 'Exit 0 after this long without an incoming message, counted from each connection and each message'
complete -c wspipe -n 'not __wspipe_curl_words' -l rate -r -f -d 'Send stdin messages at most N a second (N/s) or a minute (N/m), evenly spaced'
complete -c wspipe -n 'not __wspipe_curl_words' -l close-code -r -f -d 'The Close wspipe sends when it ends on its own: stdin EOF, --until, --idle-timeout, --max-messages'
complete -c wspipe -n 'not __wspipe_curl_words' -l ping-interval -r -f -d 'Send a ping this often, 10ms or more, to keep the connection alive'
complete -c wspipe -n 'not __wspipe_curl_words' -l ping-timeout -r -f -d 'Drop the connection as dead when no pong to our ping comes back within this time'
complete -c wspipe -n 'not __wspipe_curl_words' -l backoff -r -f -d 'Wait MIN before reconnecting, then FACTOR times longer after each failure, up to MAX'
complete -c wspipe -n 'not __wspipe_curl_words' -l jitter -r -f -d 'Vary each reconnect delay at random by up to this fraction either way'
complete -c wspipe -n 'not __wspipe_curl_words' -l max-retries -r -f -d 'Give up with exit status 3 after N failed connection attempts in a row'
complete -c wspipe -n 'not __wspipe_curl_words' -l no-reconnect -d 'Exit when the connection ends instead of reconnecting'
complete -c wspipe -n 'not __wspipe_curl_words' -l wait -d 'Retry the first connection too, with the same backoff, instead of exiting with status 3'
complete -c wspipe -n 'not __wspipe_curl_words' -l queue-limit -r -f -d 'Hold at most this much of stdin while disconnected, then stop reading it'
complete -c wspipe -n 'not __wspipe_curl_words' -l on-connect -r -f -d 'Send MSG first on each connection, ${NAME} replaced by its --capture; repeat for more'
complete -c wspipe -n 'not __wspipe_curl_words' -l on-connect-file -r -F -d 'Send the messages in FILE, one a line, first on each connection'
complete -c wspipe -n 'not __wspipe_curl_words' -l on-reconnect -r -f -d 'Send MSG instead of the on-connect messages when reconnecting; repeat for more'
complete -c wspipe -n 'not __wspipe_curl_words' -l capture -r -f -d 'Keep the latest value at KEYPATH in incoming JSON as ${NAME}; repeat for more names'
complete -c wspipe -n 'not __wspipe_curl_words' -l ack -r -f -d 'Hold each sent message with a value at KEYPATH until a reply has the same value there; resend held ones on reconnect'
complete -c wspipe -n 'not __wspipe_curl_words' -l ack-timeout -r -f -d 'At stdin EOF, wait this long for the outstanding acks'
complete -c wspipe -n 'not __wspipe_curl_words' -l answer -r -f -d 'Answer each incoming JSON message of type TYPE (at --type-key) with TEMPLATE on its connection; repeat for more types'
complete -c wspipe -n 'not __wspipe_curl_words' -l heartbeat -r -f -d 'Send TEMPLATE every --heartbeat-interval on each connection: an application-level keepalive'
complete -c wspipe -n 'not __wspipe_curl_words' -l heartbeat-interval -r -f -d 'How often --heartbeat is sent, 10ms or more'
complete -c wspipe -n 'not __wspipe_curl_words' -l heartbeat-timeout -r -f -d 'Drop a connection on which nothing at all arrives from the peer for this long'
complete -c wspipe -n 'not __wspipe_curl_words' -l wrap -r -f -d 'Take each stdin line as raw text and send it as TEMPLATE, with ${line} the line as a JSON string'
complete -c wspipe -n 'not __wspipe_curl_words' -l record -r -F -d 'Append every message sent and received, and every lifecycle event, to FILE as JSON lines'
complete -c wspipe -n 'not __wspipe_curl_words' -l replay -r -F -d 'Play a --record file: a client sends its out messages in place of stdin, a server (--listen) plays its in messages to each client that connects'
complete -c wspipe -n 'not __wspipe_curl_words' -l replay-speed -r -f -d 'Play --replay this many times faster than recorded (0.5 is half as fast)'
complete -c wspipe -n 'not __wspipe_curl_words' -l check -r -F -d 'Check the server against a recording (--record\'s file or a browser\'s HAR): send what it sent, compare what comes back, exit 8 on a difference; repeat for more files'
complete -c wspipe -n 'not __wspipe_curl_words' -l check-timeout -r -f -d 'Wait at most this long for each message a --check recording expects'
complete -c wspipe -n 'not __wspipe_curl_words' -l check-settle -r -f -d 'After the last message a recorded connection expects, watch this long for messages the recording does not have'
complete -c wspipe -n 'not __wspipe_curl_words' -l ignore -r -f -d 'Leave the value at KEYPATH out of the --check comparison, * for any key or index; repeat for more'
complete -c wspipe -n 'not __wspipe_curl_words' -l check-order -r -f -a 'recorded any' -d 'With any, the messages a recording expects between two it sends may come in any order'
complete -c wspipe -n 'not __wspipe_curl_words' -l allow-extra -r -f -d 'Let messages of type TYPE (at --type-key) come at any time in a --check, and expect none; repeat for more types'
complete -c wspipe -n 'not __wspipe_curl_words' -l junit -r -F -d 'Also write the --check results to FILE as JUnit XML, one test case per recording'
complete -c wspipe -n 'not __wspipe_curl_words' -l repeat -r -f -d 'Check the recordings N times, for the reply latencies\' percentiles'
complete -c wspipe -n 'not __wspipe_curl_words' -l max-reply-p99 -r -f -d 'Fail the run with exit status 8 when the 99th percentile of the reply latencies is above DURATION'
complete -c wspipe -n 'not __wspipe_curl_words' -l har-credentials -d 'Send the Cookie, Authorization and other credential headers of a HAR file\'s request too'
complete -c wspipe -n 'not __wspipe_curl_words' -l listen -r -f -d 'Accept WebSocket clients on this address (a bare PORT is 127.0.0.1 only; 0.0.0.0:PORT for every interface), or on the Unix-domain socket unix:PATH (removed at exit), instead of connecting to a URL'
complete -c wspipe -n 'not __wspipe_curl_words' -l once -d 'Serve one client and exit when it leaves'
complete -c wspipe -n 'not __wspipe_curl_words' -l exec -r -f -d 'Give each client its own sh -c COMMAND: its messages become the program\'s stdin lines, the program\'s stdout lines go to that client only'
complete -c wspipe -n 'not __wspipe_curl_words' -l relay -d 'Send every client\'s messages to every other client as well: a chat room without a script'
complete -c wspipe -n 'not __wspipe_curl_words' -l tag -d 'Add "$client":N to each JSON object line from client N, and send a stdin line carrying "$client":N to that client only'
complete -c wspipe -n 'not __wspipe_curl_words' -l send-timeout -r -f -d 'Disconnect a client that has taken no data for this long instead of holding back the others; 0 waits for ever'
complete -c wspipe -n 'not __wspipe_curl_words' -l max-clients -r -f -d 'Serve at most N clients at once; past that, an upgrade is answered 503'
complete -c wspipe -n 'not __wspipe_curl_words' -l max-programs -r -f -d 'With --exec, run at most N programs at once; past that, an upgrade is answered 503'
complete -c wspipe -n 'not __wspipe_curl_words' -l allow-origin -r -f -d 'Accept browser pages from ORIGIN only (scheme://host[:port]); repeat to allow more'
complete -c wspipe -n 'not __wspipe_curl_words' -l events -d 'Write lifecycle events (connected, reconnecting, ...) as {"$event":...} JSON lines on stderr'
complete -c wspipe -n 'not __wspipe_curl_words' -l stats -d 'At exit, write a JSON summary on stderr: messages and bytes each way, reconnects, unacked'
complete -c wspipe -n 'not __wspipe_curl_words' -l trace -d 'Show every frame both ways on stderr: time, direction, opcode, flags, length and a preview'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'w' -l write-out -r -f -d 'At exit, write FORMAT with %{name} replaced by what the run measured, as curl -w does; %{json} for all of it'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'h' -l help -f -a 'connection tls lines routing ending reconnect peer check server diagnostics general all' -d 'Print the short help, or every option of CATEGORY (or all), and exit'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'V' -l version -d 'Print the version and exit'
complete -c wspipe -n 'not __wspipe_curl_words' -l generate -r -f -a 'man bash zsh fish' -d 'Print the man page or the completion script for this shell and exit'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'v' -l verbose -d 'Print lifecycle notices on stderr; repeat for more detail'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'q' -l quiet -d 'Print nothing on stderr but fatal errors'
complete -c wspipe -n 'not __wspipe_curl_words' -s 'K' -l config -r -F -d 'Read options from FILE, in curl\'s config syntax, after the default config file; repeat for more files'
complete -c wspipe -n 'not __wspipe_curl_words' -l no-config -d 'Do not read the default config file (-K files still are)'
complete -c wspipe -n 'not __wspipe_curl_words' -l profile -r -f -a '(__wspipe_profiles)' -d 'Apply the [NAME] section of the config files, whatever the URL'
complete -c wspipe -n __wspipe_curl_words -s 'H' -l header -r -f -d 'A handshake header, read by its name'
complete -c wspipe -n __wspipe_curl_words -s 'b' -l cookie -r -F -d 'Cookies (NAME=VALUE; ...) or a cookie file'
complete -c wspipe -n __wspipe_curl_words -s 'c' -l cookie-jar -r -F -d 'As wspipe --cookie-jar'
complete -c wspipe -n __wspipe_curl_words -s 'u' -l user -r -f -d 'Basic authorization as USER:PASSWORD'
complete -c wspipe -n __wspipe_curl_words -s 'A' -l user-agent -r -f -d 'As wspipe --user-agent'
complete -c wspipe -n __wspipe_curl_words -s 'e' -l referer -r -f -d 'The Referer header'
complete -c wspipe -n __wspipe_curl_words -s 'k' -l insecure -d 'As wspipe --insecure'
complete -c wspipe -n __wspipe_curl_words -l cacert -r -F -d 'As wspipe --cacert'
complete -c wspipe -n __wspipe_curl_words -s 'E' -l cert -r -F -d 'As wspipe --cert'
complete -c wspipe -n __wspipe_curl_words -l key -r -F -d 'As wspipe --key'
complete -c wspipe -n __wspipe_curl_words -s 'x' -l proxy -r -f -d 'The proxy (http:// when no scheme is given)'
complete -c wspipe -n __wspipe_curl_words -s 'U' -l proxy-user -r -f -d 'As wspipe --proxy-user'
complete -c wspipe -n __wspipe_curl_words -l noproxy -r -f -d 'As wspipe --noproxy'
complete -c wspipe -n __wspipe_curl_words -l unix-socket -r -F -d 'As wspipe --unix-socket'
complete -c wspipe -n __wspipe_curl_words -l connect-timeout -r -f -d 'As wspipe --connect-timeout'
complete -c wspipe -n __wspipe_curl_words -s '4' -l ipv4 -d 'As wspipe --ipv4'
complete -c wspipe -n __wspipe_curl_words -s '6' -l ipv6 -d 'As wspipe --ipv6'
complete -c wspipe -n __wspipe_curl_words -s 'L' -l location -d 'As wspipe --location'
complete -c wspipe -n __wspipe_curl_words -l max-redirs -r -f -d 'As wspipe --max-redirs'
complete -c wspipe -n __wspipe_curl_words -s 'w' -l write-out -r -f -d 'As wspipe --write-out'
complete -c wspipe -n __wspipe_curl_words -s 'v' -l verbose -d 'As wspipe --verbose'
complete -c wspipe -n __wspipe_curl_words -s 's' -l silent -d 'As wspipe --quiet'
complete -c wspipe -n __wspipe_curl_words -l url -r -f -d 'The URL'
complete -c wspipe -n __wspipe_curl_words -s 'X' -l request -r -f -d 'GET only: the handshake is a GET'
complete -c wspipe -n __wspipe_curl_words -l oauth2-bearer -r -f -d 'An Authorization: Bearer header'
complete -c wspipe -n __wspipe_curl_words -l compressed -d 'Dropped: a WebSocket handshake has no body to compress (permessage-deflate is --compress)'
complete -c wspipe -n __wspipe_curl_words -s 'g' -l globoff -d 'Dropped: wspipe reads no {} or [] ranges in URLs'
complete -c wspipe -n __wspipe_curl_words -s 'N' -l no-buffer -d 'Dropped: wspipe writes every message as it comes'
complete -c wspipe -n __wspipe_curl_words -s 'S' -l show-error -d 'Dropped: wspipe always says why it failed'
complete -c wspipe -n __wspipe_curl_words -s 'f' -l fail -d 'Dropped: a handshake that is not answered 101 is always a failure (exit status 4)'
complete -c wspipe -n __wspipe_curl_words -l http1.1 -d 'Dropped: the WebSocket handshake is HTTP/1.1 (RFC 6455), whatever the browser used'
complete -c wspipe -n __wspipe_curl_words -l http2 -d 'Dropped: the WebSocket handshake is HTTP/1.1 (RFC 6455), whatever the browser used'
complete -c wspipe -n __wspipe_curl_words -l http2-prior-knowledge -d 'Dropped: the WebSocket handshake is HTTP/1.1 (RFC 6455), whatever the browser used'
complete -c wspipe -n __wspipe_curl_words -l http3 -d 'Dropped: the WebSocket handshake is HTTP/1.1 (RFC 6455), whatever the browser used'
complete -c wspipe -n __wspipe_curl_words -l tlsv1.2 -d 'Dropped: wspipe uses TLS 1.2 or later'
complete -c wspipe -n __wspipe_curl_words -l path-as-is -d 'Dropped: wspipe sends the URL\'s path as it is'
complete -c wspipe -n __wspipe_curl_options -a '--header -H --header-file --header-command --origin --user-agent --protocol --connect-timeout --proxy --proxy-user --proxy-user-file --noproxy --unix-socket --max-message-size --compress --location -L --max-redirs --location-downgrade --cookie --cookie-jar -c --user --user-file --ipv4 -4 --ipv6 -6 --insecure -k --cacert --cert --key --keylog --text -t --binary -b --nul -0 --no-line --binary-output --codec --lenient --strict --interactive -i --history-size --no-status-line --socketio --namespace --sio-auth --type-key --route --route-errors --no-close -n --one-message -1 --max-messages --unidirectional -u --unidirectional-reverse -U --close-timeout --linger --reply --reply-match --until --idle-timeout --rate --close-code --ping-interval --ping-timeout --backoff --jitter --max-retries --no-reconnect --wait --queue-limit --on-connect --on-connect-file --on-reconnect --capture --ack --ack-timeout --answer --heartbeat --heartbeat-interval --heartbeat-timeout --wrap --record --replay --replay-speed --check --check-timeout --check-settle --ignore --check-order --allow-extra --junit --repeat --max-reply-p99 --har-credentials --listen --once --exec --relay --tag --send-timeout --max-clients --max-programs --allow-origin --events --stats --trace --write-out -w --help -h --version -V --generate --verbose -v --quiet -q --config -K --no-config --profile'
complete -c wspipe -n __wspipe_curl_words -l print -d 'Print the wspipe command instead, secrets in a file of mode 0600'
