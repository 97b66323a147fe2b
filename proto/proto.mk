# proto/: the policy function and linear algebra both sides share, the JSON codec.
PROTO_SRC := $(wildcard proto/*.c)
PROTO_OBJ := $(PROTO_SRC:%.c=$(O)/%.o)
