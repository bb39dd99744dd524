# bash completion for perfscope: subcommands, each subcommand's options (read from `perfscope help CMD`, so they
# follow the installed binary), trace files for commands that read traces, and the program to run after `record`.
_perfscope()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local bin=${COMP_WORDS[0]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        local cmds
        cmds=$("$bin" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
        COMPREPLY=($(compgen -W "$cmds help --version --help" -- "$cur"))
        return
    fi
    local cmd=${COMP_WORDS[1]} i
    if [ "$cmd" = help ]; then
        COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')" -- "$cur"))
        return
    fi
    # After `record ... --` (or record's first non-option word) complete the program and its arguments.
    if [ "$cmd" = record ]; then
        for ((i = 2; i < COMP_CWORD; i++)); do
            if [ "${COMP_WORDS[i]}" = "--" ]; then
                _command_offset $((i + 1)) 2>/dev/null || COMPREPLY=($(compgen -c -- "$cur"))
                return
            fi
        done
    fi
    case $prev in
        -o|--output|--recover)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --format)
            local fmts
            fmts=$("$bin" help "$cmd" 2>/dev/null | sed -n 's/.*--format \([a-z|]*\).*/\1/p' | head -n 1 | tr '|' ' ')
            COMPREPLY=($(compgen -W "$fmts" -- "$cur"))
            return ;;
    esac
    if [[ $cur == -* ]]; then
        local opts
        opts=$("$bin" help "$cmd" 2>/dev/null | grep -o -- '--\?-[a-zA-Z][a-zA-Z0-9-]*' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    if [ "$cmd" = record ]; then
        COMPREPLY=($(compgen -c -- "$cur"))
        return
    fi
    # Commands that read traces: perfscope / nsys SQLite files, PyTorch profiler JSON (plain or gzip), folders.
    local f
    COMPREPLY=()
    while IFS= read -r f; do
        if [ -d "$f" ]; then
            COMPREPLY+=("$f")
        else
            case $f in *.sqlite|*.json|*.json.gz) COMPREPLY+=("$f") ;; esac
        fi
    done < <(compgen -f -- "$cur")
}
complete -o filenames -F _perfscope perfscope
