# Quokka's manager image: a static binary on distroless, running as non-root.
# Build: docker build -t quokka:latest .
FROM golang:1.26 AS builder
WORKDIR /src
# Modules first, so that source edits reuse the download layer.
COPY go.mod go.sum ./
RUN go mod download
COPY apis/ apis/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY engine/ engine/
COPY internal/ internal/
COPY simulator/ simulator/
ARG TARGETOS=linux
ARG TARGETARCH=amd64
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags="-s -w" -o /out/quokka ./cmd/quokka

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/quokka /quokka
USER 65532:65532
ENTRYPOINT ["/quokka"]
