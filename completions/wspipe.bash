# bash completion for wspipe                               -*- shell-script -*-
# Generated from the flag table by `wspipe --generate bash`; do not edit.
# Install: copy to /usr/share/bash-completion/completions/wspipe,
# or source it from ~/.bashrc.

_wspipe() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev= prefix= i
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
    # No options after "--".
    for (( i = 1; i < COMP_CWORD; i++ )); do
        [[ ${COMP_WORDS[i]} == -- ]] && return 0
    done
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
        --header-file|--proxy-user-file|--unix-socket|--cookie|-c|--cookie-jar|--user-file|--cacert|--cert|--key|--on-connect-file|--record|--replay)
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
        --generate)
            mapfile -t COMPREPLY < <(compgen -W 'man bash zsh fish' -- "$cur")
            _wspipe_prefix "$prefix"
            return 0 ;;
        -H|--header|--header-command|--origin|--user-agent|--protocol|--connect-timeout|--proxy|--proxy-user|--noproxy|--max-message-size|--max-redirs|--user|--history-size|--type-key|--route|--max-messages|--close-timeout|--linger|--reply|--until|--idle-timeout|--rate|--close-code|--ping-interval|--ping-timeout|--backoff|--jitter|--max-retries|--queue-limit|--on-connect|--on-reconnect|--capture|--ack|--ack-timeout|--answer|--heartbeat|--heartbeat-interval|--heartbeat-timeout|--wrap|--replay-speed|--listen|--exec|--send-timeout|--max-clients|--max-programs|--allow-origin|-w|--write-out)
            # A value only the user knows.
            return 0 ;;
    esac
    if [[ -z $prefix && $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W '--header -H --header-file --header-command --origin --user-agent --protocol --connect-timeout --proxy --proxy-user --proxy-user-file --noproxy --unix-socket --max-message-size --compress --location -L --max-redirs --location-downgrade --cookie --cookie-jar -c --user --user-file --ipv4 -4 --ipv6 -6 --insecure -k --cacert --cert --key --text -t --binary -b --nul -0 --no-line --binary-output --codec --lenient --strict --interactive -i --history-size --no-status-line --type-key --route --route-errors --no-close -n --one-message -1 --max-messages --unidirectional -u --unidirectional-reverse -U --close-timeout --linger --reply --until --idle-timeout --rate --close-code --ping-interval --ping-timeout --backoff --jitter --max-retries --no-reconnect --wait --queue-limit --on-connect --on-connect-file --on-reconnect --capture --ack --ack-timeout --answer --heartbeat --heartbeat-interval --heartbeat-timeout --wrap --record --replay --replay-speed --listen --once --exec --relay --tag --send-timeout --max-clients --max-programs --allow-origin --events --stats --trace --write-out -w --help -h --version -V --generate --verbose -v --quiet -q' -- "$cur")
    fi
    return 0
}

# Completing --flag=value in one word: the replies need the "--flag=" too.
_wspipe_prefix() {
    [[ -n $1 ]] && COMPREPLY=("${COMPREPLY[@]/#/$1}")
    return 0
}

complete -F _wspipe wspipe
