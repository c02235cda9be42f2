# bash completion for ebpfjail(1)                       -*- shell-script -*-
# Commands, each command's options, configuration keys (`ebpfjail config
# KEY`), running jail ids (--jail) and option values where there is a list.

_ebpfjail()
{
	local cur prev words cword
	_init_completion || return

	local commands="run audit doctor status reload allow deny config trust help"
	local keys="engine egress-jail allow-ip allow-host deny-host profile internet block-cidr local-port local-model-port callback-port pass-env unix-socket share-tmp audit-log host-settle-ms"
	local common="--config --verbose --quiet --help"

	# the command: the first word after ebpfjail that is not an option
	local i cmd=""
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--config) ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done

	case $prev in
	--config) _filedir conf; return ;;
	--jail)
		COMPREPLY=($(compgen -W "$(ls /run/ebpfjail 2>/dev/null)" -- "$cur"))
		return ;;
	--user) COMPREPLY=($(compgen -u -- "$cur")); return ;;
	--pass-env) COMPREPLY=($(compgen -e -- "$cur")); return ;;
	--since) COMPREPLY=($(compgen -W "30s 10m 1h 1d" -- "$cur")); return ;;
	--engine) COMPREPLY=($(compgen -W "auto bpf nftables" -- "$cur")); return ;;
	--allow-ip | --allow-host | --deny-host | --profile | --local-port | --callback-port) return ;;
	--internet) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
	esac

	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands --version --help" -- "$cur"))
		return
	fi

	local opts
	case $cmd in
	run) opts="--allow-ip --allow-host --deny-host --profile --internet --local-port --callback-port --pass-env --user --engine" ;;
	audit) opts="--follow --suggest --json --since --jail" ;;
	doctor | status) opts="--json" ;;
	reload | allow | deny) opts="--jail" ;;
	config) opts="--allow-ip --allow-host --deny-host --profile --internet --local-port --callback-port --pass-env" ;;
	trust) opts="--user --yes" ;;
	help)
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		return ;;
	esac

	if [[ $cmd == run ]]; then
		# after run's options: the command to jail, then its own arguments
		local j
		for ((j = i + 1; j < cword; j++)); do
			case ${words[j]} in
			--allow-ip | --allow-host | --deny-host | --profile | --internet | --local-port | --callback-port | --pass-env | --user | --config) ((j++)) ;;
			--) ((j++)); break ;;
			-*) ;;
			*) break ;;
			esac
		done
		if [[ $j -lt $cword || $cur != -* ]]; then
			_command_offset $j
			return
		fi
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts $common" -- "$cur"))
	elif [[ $cmd == config ]]; then
		COMPREPLY=($(compgen -W "$keys" -- "$cur"))
	fi
} &&
	complete -F _ebpfjail ebpfjail

# ex: filetype=sh
