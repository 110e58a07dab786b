# bash completion for wspipe                               -*- shell-script -*-
# Generated from the flag table by `wspipe --generate bash`; do not edit.
# Install: copy to /usr/share/bash-completion/completions/wspipe,
# or source it from ~/.bashrc.

_wspipe() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev= prefix= i
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ ${COMP_WORDS[1]} == curl ]] && (( COMP_CWORD > 1 )); then
        # wspipe curl: curl's options, then wspipe's after "--".
        for (( i = 2; i < COMP_CWORD; i++ )); do
            [[ ${COMP_WORDS[i]} == -- ]] && break
        done
        (( i == COMP_CWORD )) && { _wspipe_curl "$cur" "$prev"; return 0; }
    else
        # No options after "--".
        for (( i = 1; i < COMP_CWORD; i++ )); do
            [[ ${COMP_WORDS[i]} == -- ]] && return 0
        done
    fi
    # --flag=value: bash splits the word at '=' when COMP_WORDBREAKS has it.
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        prefix=$prev=
        cur=${cur#*=}
    fi
    case $prev in
        --header-file|--proxy-user-file|--unix-socket|--cookie|-c|--cookie-jar|--user-file|--cacert|--cert|--key|--keylog|--on-connect-file|--record|--replay|--check|--junit|-K|--config)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        --binary-output)
            mapfile -t COMPREPLY < <(compgen -W 'raw base64 drop' -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        --codec)
            mapfile -t COMPREPLY < <(compgen -W 'msgpack cbor' -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        --route-errors)
            mapfile -t COMPREPLY < <(compgen -W 'report ignore' -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        --check-order)
            mapfile -t COMPREPLY < <(compgen -W 'recorded any' -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        --generate)
            mapfile -t COMPREPLY < <(compgen -W 'man bash zsh fish' -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        --profile)
            mapfile -t COMPREPLY < <(compgen -W "$(_wspipe_profiles)" -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        -h|--help)
            [[ $cur == -* ]] || { mapfile -t COMPREPLY < <(compgen -W 'connection tls lines routing ending reconnect peer check server diagnostics general all' -- "$cur"); return 0; } ;;
        -H|--header|--header-command|--origin|--user-agent|--protocol|--connect-timeout|--proxy|--proxy-user|--noproxy|--max-message-size|--max-redirs|--user|--history-size|--namespace|--sio-auth|--type-key|--route|--max-messages|--close-timeout|--linger|--reply|--reply-match|--until|--idle-timeout|--rate|--close-code|--ping-interval|--ping-timeout|--backoff|--jitter|--max-retries|--queue-limit|--on-connect|--on-reconnect|--capture|--ack|--ack-timeout|--answer|--heartbeat|--heartbeat-interval|--heartbeat-timeout|--wrap|--replay-speed|--check-timeout|--check-settle|--ignore|--allow-extra|--repeat|--max-reply-p99|--listen|--exec|--send-timeout|--max-clients|--max-programs|--allow-origin|-w|--write-out)
            # A value only the user knows.
            return 0 ;;
    esac
    if [[ -z $prefix && $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W '--header -H --header-file --header-command --origin --user-agent --protocol --connect-timeout --proxy --proxy-user --proxy-user-file --noproxy --unix-socket --max-message-size --compress --location -L --max-redirs --location-downgrade --cookie --cookie-jar -c --user --user-file --ipv4 -4 --ipv6 -6 --insecure -k --cacert --cert --key --keylog --text -t --binary -b --nul -0 --no-line --binary-output --codec --lenient --strict --interactive -i --history-size --no-status-line --socketio --namespace --sio-auth --type-key --route --route-errors --no-close -n --one-message -1 --max-messages --unidirectional -u --unidirectional-reverse -U --close-timeout --linger --reply --reply-match --until --idle-timeout --rate --close-code --ping-interval --ping-timeout --backoff --jitter --max-retries --no-reconnect --wait --queue-limit --on-connect --on-connect-file --on-reconnect --capture --ack --ack-timeout --answer --heartbeat --heartbeat-interval --heartbeat-timeout --wrap --record --replay --replay-speed --check --check-timeout --check-settle --ignore --check-order --allow-extra --junit --repeat --max-reply-p99 --har-credentials --listen --once --exec --relay --tag --send-timeout --max-clients --max-programs --allow-origin --events --stats --trace --write-out -w --help -h --version -V --generate --verbose -v --quiet -q --config -K --no-config --profile' -- "$cur")
    elif [[ -z $prefix ]] && (( COMP_CWORD == 1 )); then
        mapfile -t COMPREPLY < <(compgen -W curl -- "$cur")
    fi
    return 0
}

# wspipe curl, before "--": the curl options it reads.
_wspipe_curl() {
    case $2 in
        -b|--cookie|-c|--cookie-jar|--cacert|-E|--cert|--key|--unix-socket)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$1")
            return 0 ;;
        -H|--header|-u|--user|-A|--user-agent|-e|--referer|-x|--proxy|-U|--proxy-user|--noproxy|--connect-timeout|--max-redirs|-w|--write-out|--url|-X|--request|--oauth2-bearer)
            return 0 ;;
    esac
    [[ $1 == -* ]] && mapfile -t COMPREPLY < <(compgen -W '-H --header -b --cookie -c --cookie-jar -u --user -A --user-agent -e --referer -k --insecure --cacert -E --cert --key -x --proxy -U --proxy-user --noproxy --unix-socket --connect-timeout -4 --ipv4 -6 --ipv6 -L --location --max-redirs -w --write-out -v --verbose -s --silent --url -X --request --oauth2-bearer --compressed -g --globoff -N --no-buffer -S --show-error -f --fail --http1.1 --http2 --http2-prior-knowledge --http3 --tlsv1.2 --path-as-is --print --' -- "$1")
    return 0
}

# The [NAME] sections of the default config file and of the -K files given.
_wspipe_profiles() {
    local files=() i word
    if [[ -n ${WSPIPE_CONFIG+set} ]]; then
        [[ -n $WSPIPE_CONFIG ]] && files+=("$WSPIPE_CONFIG")
    else
        files+=("${XDG_CONFIG_HOME:-$HOME/.config}/wspipe/config")
    fi
    for (( i = 1; i < COMP_CWORD; i++ )); do
        word=${COMP_WORDS[i]}
        case $word in
            -K|--config) files+=("${COMP_WORDS[i+1]/#\~/$HOME}") ;;
            --config=*) files+=("${word#--config=}") ;;
        esac
    done
    for word in "${files[@]}"; do
        [[ -r $word ]] && sed -n 's/^[[:space:]]*\[\([A-Za-z0-9._-]*\)\][[:space:]]*$/\1/p' "$word"
    done
}

# Completing --flag=value in one word: the replies need the "--flag=" too.
_wspipe_prefix() {
    [[ -n $1 ]] && COMPREPLY=("${COMPREPLY[@]/#/$1}")
    return 0
}

complete -F _wspipe wspipe
