# SPDX-License-Identifier: MIT
# gvk serve: the per-host service (src/serve: protocol, transport and the engines' client;
# src/server: the server, above the engines it runs) and its command. Included by src/CMakeLists.txt.
list(APPEND GVK_SOURCES serve/serve_proto.c serve/serve_shm.c serve/serve_client.c server/serve_server.c)
list(APPEND GVK_CLI_SOURCES cli/cmd_serve.c)
